"""Measuring a live session: the check phases, the binding A/B, the CUPTI census, the environment, native logs.

With watch/, the only part of the package that imports onnxruntime, CUPTI or torch (each lazily, where used).
"""
