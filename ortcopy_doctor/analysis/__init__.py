"""Pure analysis of recorded evidence: copies in the graph, transfers attributed to their cause, the census
matched, the binding plan and its code, statistics. No onnxruntime: evidence recorded on a GPU is analysed anywhere."""
