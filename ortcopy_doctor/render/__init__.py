"""Renderers: each reads a Report and writes one format; none touches onnxruntime."""
