"""`find --explain`'s lines, from the traces the methods record."""

from longground.methods.base import Grounding
from longground.methods.explain import explain
from longground.moments import Moments


def _people(**more) -> Grounding:
    trace = {"route": {"channel": "people", "needle": "person", "rule": "people-presence"},
             "channel": {"counted": "faces", "frames_with": 3, "frames": 10}, **more}  # fmt: skip
    return Grounding(Moments.from_list([[1.0, 4.0]], [0.9]), trace=trace)


def test_a_people_answer_says_what_it_counted_and_which_person_it_kept():
    lines = explain(_people())
    assert lines == ["why: the people channel, needle 'person' (rule people-presence)",
                     "why: faces on 3 of 10 sampled frames",
                     "why: 00:00:01.0-00:00:04.0: people, score 0.900"]  # fmt: skip
    told = {"people": 3, "face_tracks": 5, "rank": 2, "same_at": 0.87}
    assert explain(_people(identity=told))[-1] == (
        "why: 5 face tracks told apart as 3 people by their looks (cosine >= 0.87); kept person 2"
    )


def test_a_people_answer_says_how_many_at_once():
    trace = {"route": {"channel": "people", "needle": "person", "rule": "people-presence"},
             "channel": {"counted": "persons", "frames_with": 3, "frames": 10,
                         "at_once": [2, None]}}  # fmt: skip
    lines = explain(Grounding(Moments.from_list([[1.0, 4.0]], [0.9]), trace=trace))
    assert lines[1] == "why: persons (2 or more at once) on 3 of 10 sampled frames"


def test_a_speech_answer_that_no_segment_came_near_says_so():
    route = {"channel": "speech", "needle": "computer", "rule": "speech-says", "margin": 0.44}
    empty = Grounding(Moments.empty(), trace={"route": route, "channel": {"segments": 10}})
    assert explain(empty)[-1] == (
        "rejected: none of the 10 speech cues holds 'computer': no transcript has it word "
        "for word, and the keyword spotter heard it in none"
    )
    unknown = {"segments": 10, "not_spotted": "not in the dictionary: zyx"}
    lines = explain(Grounding(Moments.empty(), trace={"route": route, "channel": unknown}))
    assert lines[-1].endswith("word for word, and not in the dictionary: zyx")
    silent = Grounding(Moments.empty(), trace={"route": route, "channel": {"segments": 0}})
    assert explain(silent)[-1] == "rejected: the video has no speech to listen to"


def test_a_spotted_cue_says_why_it_was_kept_or_rejected():
    """A trace as `match.speech_moments` writes it: cue 0 kept, cue 5 rejected because the
    needle fits the other cues about as well, cue 6 because a null word fits it better."""
    route = {"channel": "speech", "needle": "volcano", "rule": "speech-says"}
    heard = {"exact": False, "words": "so", "null": ["garden", -0.0065]}
    kept = {**heard, "segment": 0, "spotted": -0.003, "standout": 0.0042}
    common = {**heard, "segment": 5, "spotted": -0.0062, "standout": 0.001}
    beaten = {**heard, "segment": 6, "spotted": -0.006, "null": ["river", -0.0055],
              "standout": 0.0012}  # fmt: skip
    channel = {"segments": 8, "matched": [kept], "rejected": [common, beaten]}
    lines = explain(Grounding(Moments.from_list([[0.0, 2.0]], [0.9]),
                              trace={"route": route, "channel": channel}))  # fmt: skip
    assert lines[1:4] == [
        "why: cue 0: spotted -0.003, above every null word (best: 'garden' -0.0065) and 0.0042 "
        "above its median over the other cues: 'so'",
        "rejected: cue 5: spotted -0.0062 but it fits the other cues about as well (only 0.001 "
        "above its median there, below 0.0025): 'so'",
        "rejected: cue 6: spotted -0.006 but a null word fits better (best: 'river' -0.0055): "
        "'so'",
    ]


def test_a_channel_asked_for_itself_says_so():
    route = {"channel": "speech", "needle": "", "rule": "speech-absent"}
    details = {"segments": 3, "any": "silence", "min_s": 2.0}
    trace = {"route": route, "channel": details}
    silence = Grounding(Moments.from_list([[2.4, 9.8]], [1.0]), trace=trace)
    assert explain(silence)[1] == (
        "why: silence: the gaps of at least 2 s around the 3 speech cues"
    )
    text = {"route": {"channel": "text", "needle": "", "rule": "text-any"},
            "channel": {"lines": 4, "any": "text"}}  # fmt: skip
    lines = explain(Grounding(Moments.empty(), trace=text))
    assert lines[1] == "why: any on-screen text: every line read (4 lines)"


def test_where_a_thing_is_not_shown_says_what_was_turned_inside_out():
    trace = {"hidden": {"query": "the cat", "shown": [[1.0, 4.0], [8.0, 9.0]], "min_s": 1.0}}
    lines = explain(Grounding(Moments.from_list([[4.0, 8.0]], [1.0]), trace=trace))
    assert lines == ["why: where 'the cat' is not shown: the gaps of at least 1 s between the 2 "
                     "moments that show it"]  # fmt: skip


def test_the_shot_next_to_a_thing_says_what_it_follows():
    trace = {"adjacent": {"query": "the cat", "shown": [[1.0, 4.0]], "side": "after",
                          "max_s": 10.0}}  # fmt: skip
    lines = explain(Grounding(Moments.from_list([[4.0, 8.0]], [0.7]), trace=trace))
    assert lines == ["why: the shot after each of the 1 moments of 'the cat': to the nearest "
                     "cut, at most 10 s"]  # fmt: skip


def test_one_of_several_things_says_what_each_found():
    trace = {"either": [{"query": "a car", "moments": [[1.0, 2.0]], "route": None},
                        {"query": "a truck", "moments": [], "route": None}]}  # fmt: skip
    lines = explain(Grounding(Moments.from_list([[1.0, 2.0]], [0.7]), trace=trace))
    assert lines == ["why: any of 2 things, the moments of each joined: 'a car' (1), 'a truck' (0)"]


def test_a_length_bound_says_so():
    lines = explain(_people(analysis={"length_s": [5.0, None]}))
    assert lines[-1] == "why: only moments that last at least 5 s"
    lines = explain(_people(analysis={"length_s": [0.0, 3.0], "occurrence": 1}))
    assert lines[-2:] == ["why: only moments that last at most 3 s",
                          "why: one moment asked for: the first"]  # fmt: skip


def test_one_moment_asked_for_says_which():
    for occurrence, said in [(1, "the first"), (-1, "the last"), (3, "number 3 in time order"),
                             ("longest", "the longest")]:
        lines = explain(_people(analysis={"occurrence": occurrence}))
        assert lines[-1] == f"why: one moment asked for: {said}"
    lines = explain(_people(analysis={"occurrence": "first 2"}))
    assert lines[-1] == "why: the moments asked for: the first 2"
    lines = explain(_people(analysis={"occurrence": "every 2"}))
    assert lines[-1] == "why: the moments asked for: every 2nd in time order, from the first"
    assert not explain(_people(analysis={"occurrence": None}))[-1].startswith("why: one moment")


def test_a_kind_of_text_says_which_pattern():
    trace = {"route": {"channel": "text", "needle": "", "rule": "text-kind", "kind": "phone"},
             "channel": {"lines": 4, "kind": "phone", "matched": ["Call 0800 123 4567"]}}
    lines = explain(Grounding(Moments.from_list([[0.0, 4.0]], [1.0]), trace=trace))
    assert lines[1] == "why: lines read that hold a phone pattern: 'Call 0800 123 4567'"


def test_events_from_their_own_channels_say_what_each_found():
    combined = {"subevents": [
        {"role": "target", "text": "someone says hello", "channel": "speech",
         "moments": [[60.0, 62.0], [80.0, 82.5]]},
        {"role": "condition", "text": "a cat", "channel": "visual", "moments": [[45.0, 57.0]]},
    ], "relation": "after", "reach_s": 5.0, "count": 1}  # fmt: skip
    trace = {"combined": combined, "analysis": {"occurrence": None}}
    lines = explain(Grounding(Moments.from_list([[60.0, 62.0]], [0.8]), trace=trace))
    assert lines == [
        "why: target 'someone says hello' from the speech channel: 2 moments",
        "why: condition 'a cat' from the image encoder: 1 moment",
        "why: relation 'after' (within 5 s): 1 of the target's moments kept",
        "why: 00:01:00.0-00:01:02.0: combined, score 0.800",
    ]

    alone = {**combined, "subevents": combined["subevents"][:1], "relation": "between times",
             "window_s": [50.0, 90.0], "count": 2}  # fmt: skip
    lines = explain(Grounding(Moments.from_list([[60.0, 62.0], [80.0, 82.5]]),
                              trace={"combined": alone}))  # fmt: skip
    assert lines[1] == "why: inside 00:00:50.0-00:01:30.0: 2 of the target's moments kept"


def test_how_many_things_at_once_is_said_to_be_unchecked():
    """"two dogs": the encoder finds dogs; the explanation says the number is not checked."""
    from longground.query import analyse

    grounding = _people(analysis=analyse("two dogs").to_record())
    assert explain(grounding)[-1].startswith("why: not checked: how many at once (2 at once)")
    grounding = _people(analysis=analyse("a dog").to_record())
    assert not any("not checked" in line for line in explain(grounding))


def test_a_near_miss_says_which_neighbour_stood_out_further():
    """A decision as `CometAgent._decide` records it for "a car" on a motorcycle video."""
    decision = {"threshold": None, "standout": 8.84, "null": ["a moped", 20.53]}
    trace = {"plan": {"target": "a car"}, "decision": {"texts": {"a car": decision}},
             "verifications": []}  # fmt: skip
    lines = explain(Grounding(Moments.empty(), trace=trace))
    assert lines[0] == "why: the image encoder, target 'a car'"
    assert ("why: its best event stands 8.8 robust SDs above its median over the video, 'a moped' "
            "20.5: 'a car' is not seen in whole frames or their halves") in lines  # fmt: skip
    decision.update(threshold=1.4, standout=25.0)
    lowered = ("why: its best event stands 25.0 robust SDs above its median over the video, "
               "'a moped' 20.5: the threshold may be lowered to the video's own level")  # fmt: skip
    assert lowered in explain(Grounding(Moments.empty(), trace=trace))
