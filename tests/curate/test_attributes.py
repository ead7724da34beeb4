"""`longground build attributes`: the CoMET-Bench size law and uniform attribute choice."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from longground.cli.main import main
from longground.curate.attributes import ATTRIBUTE_ORDER, AttributeSampler
from longground.errors import UserError


def naive_p(mu: float, alpha: float) -> list[float]:
    """p(k) written out from the paper's formula, k = 1..7."""
    weights = [np.exp(-alpha * (k - mu) ** 2) for k in range(1, 8)]
    return [w / sum(weights) for w in weights]


@pytest.mark.parametrize(("mu", "alpha"), [(2.5, 0.9), (4.0, 0.3), (1.0, 2.0)])
def test_100k_draws_match_the_size_law_and_uniform_attributes(mu, alpha):
    n = 100_000
    draws = AttributeSampler(mu=mu, alpha=alpha).draw(n, seed=7)
    sizes = Counter(len(c) for c in draws)
    for k, p in enumerate(naive_p(mu, alpha), start=1):
        assert abs(sizes[k] / n - p) <= 0.005, (k, sizes[k] / n, p)
    # Given the sizes, each attribute is in a combination with probability E[k] / 8.
    expected = sum(len(c) for c in draws) / n / len(ATTRIBUTE_ORDER)
    picked = Counter(a for c in draws for a in c)
    for name in ATTRIBUTE_ORDER:
        assert abs(picked[name] / n - expected) <= 0.005, (name, picked[name] / n, expected)
    assert all(len(set(c)) == len(c) for c in draws)  # without replacement


def test_every_pair_of_attributes_is_equally_likely():
    draws = AttributeSampler().draw(60_000, seed=3)
    pairs = Counter((a, b) for c in draws for i, a in enumerate(c) for b in c[i + 1 :])
    counts = np.array(list(pairs.values()), dtype=float)
    assert len(pairs) == 28 and counts.std() / counts.mean() < 0.03


def test_same_seed_same_lines_other_seed_other_lines(capsys):
    assert main(["build", "attributes", "--count", "20", "--seed", "5"]) == 0
    first = capsys.readouterr().out.splitlines()
    assert main(["build", "attributes", "--count", "20", "--seed", "5"]) == 0
    assert capsys.readouterr().out.splitlines() == first
    assert main(["build", "attributes", "--count", "20", "--seed", "6"]) == 0
    assert capsys.readouterr().out.splitlines() != first
    rows = [json.loads(line) for line in first]
    assert len(rows) == 20 and all(set(r) <= set(ATTRIBUTE_ORDER) for r in rows)
    assert all(r == [a for a in ATTRIBUTE_ORDER if a in r] for r in rows)


@pytest.mark.parametrize(("mu", "alpha"), [(float("nan"), 0.9), (2.5, float("inf")), (2.5, -1.0)])
def test_bad_settings_are_one_line_errors(mu, alpha, capsys):
    with pytest.raises(UserError):
        AttributeSampler(mu=mu, alpha=alpha)
    code = main(["build", "attributes", "--count", "2", "--mu", str(mu), "--alpha", str(alpha)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("longground: error:") and err.count("\n") == 1


def test_far_off_mu_still_gives_a_distribution():
    p = AttributeSampler(mu=40.0, alpha=5.0).size_probabilities()
    assert p[-1] == pytest.approx(1.0)
