"""CoMET-Bench's attribute sampler (App. B.3): how many attributes a query combines, and which.

The size k of a combination is drawn from {1, ..., 7} with p(k) proportional to
exp(-alpha (k - mu)^2) (mu = 2.5, alpha = 0.9 in the paper, so sizes 2 and 3 are the most
likely); then k of the eight attributes are drawn uniformly without replacement.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import UserError
from ..samples import ATTRIBUTE_ORDER

MAX_K = 7
MAX_COUNT = 1_000_000  # combinations one `build attributes` call draws (8 floats each)
MAX_SEED = 2**63 - 1

# In our words, after CoMET-Bench Sec. 3.1; sent to the model with each combination.
DEFINITIONS = {
    "identity": "the query follows one particular person or thing that must be told apart "
    "from similar ones over the whole video (e.g. the player who scored first)",
    "static": "the matching moments share a look that one frame shows (clothing, colour, place)",
    "dynamic": "the matching moments need motion seen over several frames of one event "
    "(e.g. someone running, a door swinging shut)",
    "causal": "one event happens because of another (e.g. a glass breaks after it is knocked)",
    "sequential": "one event comes strictly before or after another",
    "synchronous": "two things happen at the same time",
    "bounded": "only moments inside a stated stretch of time count (e.g. before the break)",
    "negative": "the query names something plausible for this video that never happens, "
    "so the right answer has no moments at all",
}


@dataclass(frozen=True)
class AttributeSampler:
    """The size distribution's settings, validated once.

    Args:
        mu: the most likely size (may be fractional).
        alpha: how sharply sizes away from `mu` are down-weighted (>= 0; 0 is uniform).

    >>> AttributeSampler().size_probabilities().round(3).tolist()
    [0.071, 0.428, 0.428, 0.071, 0.002, 0.0, 0.0]
    """

    mu: float = 2.5
    alpha: float = 0.9

    def __post_init__(self) -> None:
        if not math.isfinite(self.mu):
            raise UserError(f"--mu must be a finite number, got {self.mu}")
        if not (math.isfinite(self.alpha) and self.alpha >= 0):
            raise UserError(f"--alpha must be a finite number >= 0, got {self.alpha}")
        try:
            with np.errstate(over="raise", invalid="raise", under="ignore"):  # never a warning
                usable = np.isfinite(self.size_probabilities()).all()
        except FloatingPointError:
            usable = False
        if not usable:
            raise UserError(
                f"--mu {self.mu:g} and --alpha {self.alpha:g} overflow the size law "
                "exp(-alpha (k-mu)^2); choose smaller values"
            )

    def size_probabilities(self) -> np.ndarray:
        """`(7,)` p(k) for k = 1..7, summing to 1."""
        k = np.arange(1, MAX_K + 1, dtype=np.float64)
        log_w = -self.alpha * (k - self.mu) ** 2
        w = np.exp(log_w - log_w.max())  # shifted so a far-off mu cannot underflow to 0/0
        return w / w.sum()

    def draw(self, count: int, seed: int) -> list[list[str]]:
        """`count` combinations, each a list of attribute names in `ATTRIBUTE_ORDER`.

        >>> AttributeSampler().draw(3, seed=0) == AttributeSampler().draw(3, seed=0)
        True
        >>> all(1 <= len(c) <= 7 for c in AttributeSampler().draw(50, seed=1))
        True
        """
        check_count(count)
        if seed < 0:  # numpy's generators take any integer >= 0
            raise UserError(f"--seed must be >= 0, got {seed}")
        rng = np.random.default_rng(seed)
        sizes = rng.choice(np.arange(1, MAX_K + 1), size=count, p=self.size_probabilities())
        # k uniform picks without replacement = the first k of a uniform random permutation.
        order = np.argsort(rng.random((count, len(ATTRIBUTE_ORDER))), axis=1)
        return [[ATTRIBUTE_ORDER[i] for i in sorted(order[row, :k])] for row, k in enumerate(sizes)]


def check_count(count: int) -> int:
    """`count` when it is in 0..MAX_COUNT, else a one-line `UserError`.

    >>> check_count(10**12)
    Traceback (most recent call last):
    longground.errors.UserError: --count must be in 0..1000000, got 1000000000000
    """
    if not 0 <= count <= MAX_COUNT:
        raise UserError(f"--count must be in 0..{MAX_COUNT}, got {count}")
    return count


def check_seed(seed: int) -> int:
    """`seed` when it is in 0..2**63-1 (what numpy's generators take), else a `UserError`.

    >>> check_seed(-1)
    Traceback (most recent call last):
    longground.errors.UserError: --seed must be in 0..9223372036854775807, got -1
    """
    if not 0 <= seed <= MAX_SEED:
        raise UserError(f"--seed must be in 0..{MAX_SEED}, got {seed}")
    return seed
