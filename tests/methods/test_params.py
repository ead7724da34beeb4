"""The one `-p` parser: every parameter of every method, by type, through the same rules."""

from __future__ import annotations

import typing
from dataclasses import fields

import pytest

from longground.agent.profiles import Profile
from longground.agent.settings import AgentSettings
from longground.cli.main import main
from longground.errors import UserError
from longground.methods import MethodConfig, available_methods, build_method
from longground.methods.hybrid import HybridParams
from longground.methods.monolithic import MonolithicParams
from longground.methods.retrieval import RetrievalParams
from longground.params import defaults, parse_value, parse_values

# Every method and the settings dataclasses its `-p` keys fill.
SETTINGS = {
    "retrieval": (RetrievalParams,),
    "monolithic": (MonolithicParams,),
    "hybrid": (HybridParams,),
    "agent": (AgentSettings, Profile),
}
SKIPPED = {"overrides", "name"}  # filled by the parser itself / the profile's own name

# What each type refuses, and one text it reads (with the value it gives).
REFUSED = {
    int: [("2.9", "is not an integer"), ("inf", "is not an integer"), ("1e3", "is not an integer"),
          ("x", "is not an integer")],
    float: [("inf", "is not a finite number"), ("nan", "is not a finite number"),
            ("-inf", "is not a finite number"), ("x", "is not a finite number")],
    bool: [("maybe", "is not true or false"), ("2", "is not true or false")],
    str: [],
}  # fmt: skip
READ = {int: ("7", 7), float: ("0.25", 0.25), bool: ("yes", True), str: ("word", "word")}


def table():
    """`(method, class, key, base type, optional)` for every parameter of every method."""
    rows = []
    for method, classes in SETTINGS.items():
        for cls in classes:
            hints = typing.get_type_hints(cls)
            for f in fields(cls):
                if f.name in SKIPPED:
                    continue
                args = [a for a in typing.get_args(hints[f.name]) if a is not type(None)]
                optional = len(args) < len(typing.get_args(hints[f.name]))
                kind = args[0] if optional else hints[f.name]
                rows.append(pytest.param(method, cls, f.name, kind, optional,
                                         id=f"{method}-{f.name}"))  # fmt: skip
    return rows


def test_the_table_covers_every_registered_method():
    assert sorted(SETTINGS) == available_methods()


@pytest.mark.parametrize("method,cls,key,kind,optional", table())
def test_every_parameter_parses_by_its_type(method, cls, key, kind, optional, tmp_path):
    assert kind in READ, f"{method}: parameter {key} has a type the parser does not know"
    text, value = READ[kind]
    assert parse_values(cls, {key: text}, method) == {key: value}
    if key in defaults(cls) and defaults(cls)[key] is not None:  # the default round-trips
        default = defaults(cls)[key]
        assert parse_values(cls, {key: str(default).lower()}, method)[key] == default
    if optional and kind is not str:
        assert parse_values(cls, {key: "none"}, method) == {key: None}
    for bad, reason in REFUSED[kind]:  # refused by the method itself, before any work
        config = MethodConfig(params={key: bad}, cache_dir=tmp_path)
        with pytest.raises(UserError, match=f"^{method}: parameter {key}='{bad}' {reason}$"):
            build_method(method, config)


@pytest.mark.parametrize("method", sorted(SETTINGS))
def test_unknown_keys_list_the_known_ones(method, tmp_path):
    with pytest.raises(UserError) as caught:
        build_method(method, MethodConfig(params={"no_such_key": "1"}, cache_dir=tmp_path))
    message = str(caught.value)
    assert message.startswith(f"{method}: unknown parameter(s) no_such_key; known: ")
    for cls in SETTINGS[method]:
        for f in fields(cls):
            assert f.name in SKIPPED or f.name in message


def test_typed_values_are_checked_too():
    assert parse_value("k", 3, int, "retrieval") == 3
    assert (
        parse_value("gamma", 1, float, "agent") == 1.0
        and parse_value("r", False, bool, "a") is False
    )
    for bad, kind in [(2.9, int), (3.0, int), (True, int), (float("inf"), float), ("x", bool),
                      (1, bool), (3, str)]:  # fmt: skip
        with pytest.raises(UserError, match="is not"):
            parse_value("p", bad, kind, "m")


def test_a_setting_may_allow_infinity():
    from dataclasses import dataclass, field

    @dataclass(frozen=True)
    class P:
        limit_s: float = field(default=float("inf"), metadata={"finite": False})
        gap_s: float = 1.0

    assert parse_values(P, {"limit_s": "inf"}, "m") == {"limit_s": float("inf")}
    with pytest.raises(UserError, match="gap_s='inf' is not a finite number"):
        parse_values(P, {"gap_s": "inf"}, "m")


@pytest.mark.parametrize(
    "method,param",
    [
        ("agent", "hops=2.9"),
        ("retrieval", "k=2.9"),
        ("hybrid", "k=2.9"),
        ("monolithic", "n_frames=2.9"),
    ],
)
def test_find_refuses_a_fractional_count_in_one_line(method, param, tmp_path, capsys):
    video = tmp_path / "v.mp4"
    code = main(["find", str(video), "a cat", "--method", method, "-p", param,
                 "--cache-dir", str(tmp_path / "cache")])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    key = param.split("=")[0]
    assert err == f"longground: error: {method}: parameter {key}='2.9' is not an integer\n"
