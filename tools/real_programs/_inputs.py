"""Deterministic inputs for the real-program drivers: text images, photos-like images, speech-like audio, files.

Made in code (numpy, Pillow) so that the drivers need nothing beside them and every run feeds the same bytes.
"""

from __future__ import annotations

import numpy as np

WORDS = ["invoice", "total", "2026-12-04", "ONNX Runtime", "host to device", "copy", "latency", "batch 8",
         "numpy", "pipeline", "PCIe", "session", "12.50 EUR", "kernel", "stream", "H200"]


def text_image(index: int, width: int, height: int) -> np.ndarray:
    """A white page (BGR uint8, as OpenCV reads images) with a few lines of black text."""
    from PIL import Image, ImageDraw, ImageFont

    rng = np.random.default_rng(index)
    page = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(page)
    size = max(14, height // 12)
    font = ImageFont.load_default(size=size)
    y = size
    while y + size < height - size:
        words = " ".join(rng.choice(WORDS, size=3))
        draw.text((int(rng.integers(8, max(9, width // 6))), y), words, fill="black", font=font)
        y += int(size * 1.8)
    return np.ascontiguousarray(np.asarray(page)[:, :, ::-1])


def photo(index: int, width: int, height: int) -> np.ndarray:
    """A smooth random colour field with a few shapes (BGR uint8)."""
    from PIL import Image, ImageDraw

    rng = np.random.default_rng(1000 + index)
    base = rng.integers(0, 255, size=(4, 4, 3), dtype=np.uint8)
    image = Image.fromarray(base).resize((width, height), Image.BILINEAR)
    draw = ImageDraw.Draw(image)
    for _ in range(6):
        x0, y0 = int(rng.integers(0, width - 20)), int(rng.integers(0, height - 20))
        x1, y1 = x0 + int(rng.integers(10, width // 3)), y0 + int(rng.integers(10, height // 3))
        draw.ellipse((x0, y0, x1, y1), fill=tuple(int(v) for v in rng.integers(0, 255, 3)))
    return np.ascontiguousarray(np.asarray(image)[:, :, ::-1])


def speech_like(seconds: float, rate: int = 16000, seed: int = 0) -> np.ndarray:
    """Float32 mono audio: bursts of voiced harmonics (speech-like) between stretches of quiet noise."""
    rng = np.random.default_rng(seed)
    n = int(seconds * rate)
    t = np.arange(n) / rate
    audio = 0.003 * rng.standard_normal(n)
    for start in np.arange(0.3, seconds - 0.6, 1.1):
        a, b = int(start * rate), int((start + 0.6) * rate)
        f0 = 110 + 40 * np.sin(2 * np.pi * 3 * t[a:b])
        phase = 2 * np.pi * np.cumsum(f0) / rate
        voiced = sum(np.sin(k * phase) / k for k in range(1, 8))
        audio[a:b] += 0.3 * voiced * np.hanning(b - a)
    return audio.astype(np.float32)
