"""The vocabulary every layer shares: evidence and report types, their JSON form and schema, errors, units.

The lowest layer: it imports nothing else of the package, and none of onnxruntime, CUPTI or torch.
"""
