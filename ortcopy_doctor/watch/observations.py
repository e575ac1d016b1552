"""What a watch records (``WatchObservations``) and its loading from JSON (``load_observations``): the types live in
``model.watch`` (issue 35); this module keeps their old import path. ``analyse_watch`` turns them into a report
without onnxruntime."""

from __future__ import annotations

from ortcopy_doctor.model.vocabulary import (
    DEVICE_TO_DEVICE,
    DEVICE_TO_HOST,
    FEED,
    FETCH,
    HOST_TO_DEVICE,
    IN_KERNEL,
    MEMCPY_NODE,
    UNEXPLAINED,
)
from ortcopy_doctor.model.watch import (
    BASIS_CENSUS,
    BASIS_PLACEMENT,
    BASIS_PREDICTION,
    PLACEMENT_HOST_ONLY,
    PLACEMENT_PREDICTED,
    PLACEMENT_SESSION,
    PLACEMENT_UNKNOWN,
    USER_KINDS,
    WATCH_FORMAT,
    WATCH_FORMAT_VERSION,
    Basis,
    BindRecords,
    CallObservation,
    CallProfile,
    ModelTransferSite,
    Placement,
    PlacementSource,
    ProfileMemcpy,
    TensorUse,
    WatchObservations,
    is_host,
    load_observations,
)

_is_host = is_host  # its name here before it moved

__all__ = [
    "BASIS_CENSUS", "BASIS_PLACEMENT", "BASIS_PREDICTION", "Basis", "DEVICE_TO_DEVICE", "DEVICE_TO_HOST", "FEED",
    "FETCH", "HOST_TO_DEVICE", "IN_KERNEL", "MEMCPY_NODE", "PLACEMENT_HOST_ONLY", "PLACEMENT_PREDICTED",
    "PLACEMENT_SESSION", "PLACEMENT_UNKNOWN", "PlacementSource", "UNEXPLAINED", "USER_KINDS", "WATCH_FORMAT",
    "WATCH_FORMAT_VERSION", "BindRecords",
    "CallObservation", "CallProfile", "ModelTransferSite", "Placement", "ProfileMemcpy", "TensorUse",
    "WatchObservations", "load_observations",
]
