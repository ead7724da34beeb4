"""`--preset`: named parameter sets per method, applied before `-p` overrides."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from longground.cli import options as opt
from longground.cli.main import main
from longground.errors import UserError
from longground.methods.base import parse_params
from longground.methods.hybrid import PAPER, HybridParams
from longground.methods.presets import PRESETS, Preset, apply_preset, preset_names

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _config(**kw):
    base = dict(encoder="label-bridge", fps=1.0, single=False, params=None, llm=None,
                base_url=None, model=None, api_key=None, cache_dir=None)  # fmt: skip
    return opt.method_config(**{**base, **kw})


def test_paper_preset_is_extremewhenbench_hybrid():
    params = parse_params(HybridParams, apply_preset("hybrid", "paper", {}), "hybrid")
    assert (params.n_frames, params.k, params.half_width_s, params.nms_s) == (768, 3, 60.0, 60.0)
    defaults = parse_params(HybridParams, apply_preset("hybrid", "longground", {}), "hybrid")
    assert defaults == HybridParams()


def test_p_overrides_the_preset():
    config = _config(method="hybrid", preset="paper", params=["n_frames=256"])
    params = parse_params(HybridParams, config.params, "hybrid")
    assert params.n_frames == 256 and params.k == 3
    assert _config(method="hybrid").params == {}  # no preset: the defaults, as before


def test_unknown_preset_names_the_known_ones():
    with pytest.raises(UserError, match=r"method hybrid has no preset 'papr'; choose from: "
                       r"longground, paper"):  # fmt: skip
        apply_preset("hybrid", "papr", {})
    with pytest.raises(UserError, match="method retrieval has no preset 'paper'"):
        apply_preset("retrieval", "paper", {})
    assert preset_names("retrieval") == ["longground", "ewb-windows"]


def test_ewb_windows_are_one_named_preset():
    from longground.methods.retrieval import RetrievalParams
    from longground.topk import EWB_WINDOWS

    params = parse_params(RetrievalParams, apply_preset("retrieval", "ewb-windows", {}), "r")
    assert (params.mode, params.k, params.half_width_s, params.nms_s) == ("topk", 10, 60.0, 60.0)
    assert (EWB_WINDOWS.k, EWB_WINDOWS.half_width_s, EWB_WINDOWS.nms_s) == (10, 60.0, 60.0)
    over = parse_params(RetrievalParams, apply_preset("retrieval", "ewb-windows", {"k": "3"}), "r")
    assert over.k == 3 and over.mode == "topk"  # -p wins over the preset


def test_every_preset_value_has_a_source_and_a_known_key():
    with pytest.raises(ValueError, match="no source"):
        Preset("hybrid", "x", {"k": 1})
    for method, presets in PRESETS.items():
        for preset in presets.values():
            assert set(preset.values) <= set(preset.sources), (method, preset.name)
    parse_params(HybridParams, PAPER.values, "hybrid")  # every key is a hybrid parameter


def test_docs_table_matches_the_registry():
    text = (DOCS / "llm.md").read_text()
    defaults = HybridParams()
    for key, value in PAPER.values.items():
        row = re.search(rf"^\| `{key}` \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$", text, re.M)
        assert row is not None, key
        assert float(row.group(1)) == getattr(defaults, key)
        assert float(row.group(2)) == value
        assert "Table" in row.group(3) or "§" in row.group(3)


def test_run_and_find_accept_preset(tmp_path, capsys):
    bench = tmp_path / "b.jsonl"
    bench.write_text(
        '{"qid": "a", "video": "v.mp4", "duration": 10, "query": "q", "intervals": []}\n'
    )
    out = str(tmp_path / "o.jsonl")
    code = main(["run", str(bench), "--out", out, "-m", "retrieval", "--preset", "paper"])
    assert code == 2 and "method retrieval has no preset 'paper'" in capsys.readouterr().err
    code = main(["find", str(tmp_path / "v.mp4"), "q", "--method", "hybrid", "--preset", "nope"])
    assert code == 2 and "method hybrid has no preset 'nope'" in capsys.readouterr().err


def test_paper_baselines_table_matches_the_registry():
    from longground.methods.baselines import PAPER_SETTINGS

    text = (DOCS / "llm.md").read_text()
    section = text[text.index("### `--preset paper` for each baseline") :]
    rows = [line for line in section.splitlines() if re.match(r"\| (ewb|comet) \|", line)]
    assert len(rows) == len(PAPER_SETTINGS)
    for row, setting in zip(rows, PAPER_SETTINGS, strict=True):
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[0] == setting.paper and cells[1] == setting.family
        assert cells[2].split()[0] == setting.video_input
        assert int(cells[3]) == setting.n_frames and cells[4] == "strict"
        assert cells[5] == setting.source


@pytest.mark.parametrize(
    ("method", "single", "model", "expected"),
    [
        ("monolithic", True, "gpt-5.4", ("grid", 64)),
        ("monolithic", True, "Qwen/Qwen3.5-9B", ("video", 2048)),
        ("monolithic", True, "OpenGVLab/InternVL3_5-8B", ("video", 128)),
        ("monolithic", True, "gemini-2.5-flash", ("video", 1024)),
        ("monolithic", False, "gpt-5", ("frames", 128)),
        ("monolithic", False, "Qwen/Qwen3-VL-8B-Instruct", ("video", 128)),
        ("hybrid", False, "Qwen/Qwen3.5-9B", ("video", 768)),  # the hybrid keeps its 768
    ],
)
def test_paper_preset_picks_the_models_setting(method, single, model, expected):
    config = _config(method=method, preset="paper", single=single, model=model)
    assert (config.llm.video_input, config.params["n_frames"]) == expected
    assert config.parse == "strict"
