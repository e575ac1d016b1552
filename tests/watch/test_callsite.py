"""watch/callsite.py, in this process: the names a call site uses for a session, the arrays a dict literal feeds and
the variables the outputs are unpacked into, each confirmed in the frame; and that it never raises."""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import Any

import numpy as np

from ortcopy_doctor.watch.callsite import site_names


class _Session:
    """Stands for an InferenceSession: ``run`` looks up the names of its caller's frame, as the recorder does."""

    def __init__(self, outputs: list[str]) -> None:
        self.outputs = outputs
        self.seen: tuple[str, dict[str, str], dict[str, str]] = ("", {}, {})

    def get_outputs(self) -> list[Any]:
        return [SimpleNamespace(name=n) for n in self.outputs]

    def run(self, output_names: Any, input_feed: Any) -> list[Any]:
        self.seen = site_names(sys._getframe(1), self, "run", (output_names, input_feed), {})
        return [np.zeros(1) for _ in (output_names or self.outputs)]


def test_a_variable_a_dict_literal_and_unpacked_outputs():
    det = _Session(["boxes", "scores"])
    image = np.ones(2)
    found, kept = det.run(None, {"x": image, "y": image + 1})
    assert det.seen == ("det", {"x": "image"}, {"boxes": "found", "scores": "kept"})


def test_an_attribute_of_self_and_one_output_taken_by_index():
    class Pipeline:
        def __init__(self) -> None:
            self.det_session = _Session(["boxes", "scores"])

        def __call__(self, image: Any) -> Any:
            scores = self.det_session.run(["scores"], {"x": image})[0]
            return scores

    pipe = Pipeline()
    pipe(np.ones(2))
    assert pipe.det_session.seen == ("self.det_session", {"x": "image"}, {"scores": "scores"})


def test_a_feed_built_elsewhere_names_no_input():
    det = _Session(["boxes"])
    feeds = {"x": np.ones(2)}
    result = det.run(None, feeds)
    assert det.seen == ("det", {}, {})
    assert len(result) == 1


def test_a_frame_it_cannot_read_gives_no_name():
    assert site_names(object(), _Session(["y"]), "run", (None, {}), {}) == ("", {}, {})
