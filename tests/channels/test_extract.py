"""The pass over frames the text and people channels share: they look only at new
pictures, and OCR reads again only the band of rows that changed."""

from __future__ import annotations

import cv2
import pytest

from longground.channels import ocr
from longground.channels import people as people_module
from longground.channels.extract import extract_visual_channels

from .clips import face, slide, write_clip

pytest.importorskip("rapidocr_onnxruntime")


def test_text_and_people_look_only_at_new_pictures(tmp_path, monkeypatch):
    """A slide for 4 s, then the astronaut for 4 s, sampled at 1 fps: two pictures, so OCR
    and the detectors run twice, and the counts of the frames between are repeated."""
    path = write_clip(tmp_path / "two.mp4", [slide("Budget Review"), face()], 4.0)
    calls = []
    count = people_module.PeopleDetector.count
    monkeypatch.setattr(people_module.PeopleDetector, "count",
                        lambda self, frame: calls.append(1) or count(self, frame))  # fmt: skip
    found = extract_visual_channels(path, ("text", "people"), 1.0)
    assert found["text"].n_read == 2 and len(calls) == 2
    persons = found["people"].persons
    assert persons.shape == (8,) and (persons[:4] == 0).all() and (persons[4:] > 0).all()


def test_a_caption_is_read_alone_and_the_title_stays_one_line(tmp_path, monkeypatch):
    """A slide titled "Budget Review" for 6 s, with a caption "GOAL" over its bottom from
    2 s to 4 s: three pictures; the second and third reads look only at the bottom band, and
    the title is one line from 0 s to the end."""
    plain = slide("Budget Review")
    captioned = plain.copy()
    cv2.rectangle(captioned, (0, 150), (320, 180), (0, 0, 0), -1)
    cv2.putText(captioned, "GOAL", (20, 172), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 0), 2)
    path = write_clip(tmp_path / "goal.mp4", [plain, captioned, plain], 2.0)
    bands = []
    read = ocr.TextReader.read
    monkeypatch.setattr(ocr.TextReader, "read", lambda self, frame, top=0, bottom=None:
                        bands.append((top, bottom)) or read(self, frame, top, bottom))  # fmt: skip
    lines = extract_visual_channels(path, ("text",), 1.0)["text"].to_dict()["lines"]
    assert len(bands) == 3 and bands[0] == (0, 180) and all(b[0] > 90 for b in bands[1:])
    assert [line[:3] for line in lines] == [[0.0, 6.0, "Budget Review"], [2.0, 4.0, "GOAL"]]
