"""The closed sets of names every layer uses: kinds of copy, directions, census classes (strings in the JSON)."""

from __future__ import annotations

# The four kinds of host<->device copy (docs/ort-notes.md).
FEED = "feed"  # a host input consumed on the device
FETCH = "fetch"  # an output produced on the device, returned to the host
MEMCPY_NODE = "memcpy_node"  # a Memcpy node ORT inserted at a CPU/device boundary
IN_KERNEL = "in_kernel"  # a kernel's own transfer inside its run
COPY_KINDS = (FEED, FETCH, MEMCPY_NODE, IN_KERNEL)

HOST_TO_DEVICE = "host_to_device"
DEVICE_TO_HOST = "device_to_host"
DEVICE_TO_DEVICE = "device_to_device"
HOST_DEVICE = (HOST_TO_DEVICE, DEVICE_TO_HOST)

# Census classes beyond the four kinds: where a traced transfer belongs when it is none of them.
OTHER_COPY = "other_copy"  # host_to_host, peer_to_peer, ...: neither crosses host<->device nor is D2D
OUTSIDE = "outside"  # issued outside every model_run event
BETWEEN_NODES = "between_nodes"  # inside a run, after its first node started and before its last ended, in no node
CENSUS_CLASSES = (FEED, FETCH, MEMCPY_NODE, IN_KERNEL, DEVICE_TO_DEVICE, OTHER_COPY, OUTSIDE, BETWEEN_NODES)
UNEXPLAINED = "unexplained"

MEMCPY_OPS = ("MemcpyToHost", "MemcpyFromHost")

__all__ = ["BETWEEN_NODES", "CENSUS_CLASSES", "COPY_KINDS", "DEVICE_TO_DEVICE", "DEVICE_TO_HOST", "FEED", "FETCH",
           "HOST_DEVICE", "HOST_TO_DEVICE", "IN_KERNEL", "MEMCPY_NODE", "MEMCPY_OPS", "OTHER_COPY", "OUTSIDE",
           "UNEXPLAINED"]
