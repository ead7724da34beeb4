"""The people channel: OpenCV's frontal-face Haar cascade and HOG pedestrian detector (both
ship in opencv-python 4.x, not in 5.0) on each sampled frame."""

from __future__ import annotations

import numpy as np

from ..errors import UserError, require

SIDE = 360  # frames are looked at with their shorter side at most this many pixels
HOG_WINDOW = (64, 128)  # width, height of the pedestrian detector's window
#: The face cascade's step between scales and the overlapping hits a face needs. A step of
#: 1.2 would halve the cascade's CPU (95 -> 55 ms a 270p frame) but loses 30-pixel faces.
FACE_SCALE_STEP, FACE_NEIGHBOURS = 1.1, 6


class PeopleDetector:
    """`count(frame)` -> `(faces, persons, boxes)` for an `(H, W, 3)` uint8 RGB frame."""

    def __init__(self):
        cv2 = require("cv2", "channels")
        data = getattr(cv2, "data", None)
        folder = getattr(data, "haarcascades", "") if data is not None else ""
        self._faces = cv2.CascadeClassifier(folder + "haarcascade_frontalface_default.xml")
        if self._faces.empty() or not hasattr(cv2, "HOGDescriptor_getDefaultPeopleDetector"):
            raise UserError(
                "the people channel needs OpenCV 4.x with its cascades: "
                "pip install 'longground[channels]'"
            )
        self._hog = cv2.HOGDescriptor()
        self._hog.setSVMDetector(cv2.HOGDescriptor_getDefaultPeopleDetector())
        self._cv2 = cv2

    def count(self, frame: np.ndarray) -> tuple[int, int, list]:
        cv2 = self._cv2
        scale = min(1.0, SIDE / min(frame.shape[:2]))
        if scale < 1.0:
            size = (round(frame.shape[1] * scale), round(frame.shape[0] * scale))
            frame = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
        grey = self.grey(frame)
        faces = self.faces(grey)
        bodies = [b for b, w in zip(*self.bodies(grey)) if w > 0.5]
        faces = [[int(v / scale) for v in box] for box in faces]
        bodies = [[int(v / scale) for v in box] for box in bodies]
        return len(faces), max(len(bodies), len(faces)), [faces, bodies]

    def grey(self, frame: np.ndarray) -> np.ndarray:
        """The equalised grey image both detectors look at, of an `(H, W, 3)` RGB frame."""
        cv2 = self._cv2
        return cv2.equalizeHist(cv2.cvtColor(frame, cv2.COLOR_RGB2GRAY))

    def faces(self, grey: np.ndarray) -> list:
        """`[x, y, w, h]` pixel boxes of the faces in a `grey` image, at its own size."""
        found = self._faces.detectMultiScale(
            grey, FACE_SCALE_STEP, FACE_NEIGHBOURS, minSize=(24, 24)
        )
        return [[int(v) for v in box] for box in found]

    def bodies(self, grey: np.ndarray) -> tuple[list, list]:
        """`[x, y, w, h]` pixel boxes of the people in a `grey` image, at its own size, and
        each one's SVM margin (HOG's weight; `count` keeps those above 0.5)."""
        if grey.shape[0] < HOG_WINDOW[1] or grey.shape[1] < HOG_WINDOW[0]:
            return [], []  # OpenCV 4.14 crashes when the image is smaller than the window
        found, weights = self._hog.detectMultiScale(grey, winStride=(8, 8), scale=1.1)
        return [[int(v) for v in box] for box in found], [float(w) for w in np.ravel(weights)]
