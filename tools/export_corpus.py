"""Export the real-model corpus of issue 11: torchvision, transformers, torch.nn and onnx.helper models.

    python tools/export_corpus.py OUT_DIR [--jobs N] [--only NAME,NAME] [--timeout S]

Reproducible and offline: random weights (``weights=None``, ``weights_backbone=None``, seeded), transformers models
built from small configs with ``from_config``, opset 17. Each model goes through ``torch.onnx.export(dynamo=False)``
(the TorchScript exporter) first and ``dynamo=True`` where that fails; the sidecar records which. Every model gets
``NAME.onnx`` and ``NAME.json`` (the sidecar: what ``check`` needs to run it: ``dims``, ``shapes``, an ``inputs``
.npz of real values for scalar controls and token ids, plus ``exporter``, ``tags`` and ``notes``). A model whose
export fails gets a sidecar with ``"failed": "<reason>"`` and no .onnx; the run goes on. ``corpus.json`` lists all.

Each model is exported in its own process (``--jobs`` at a time, ``--timeout`` seconds each), so one exporter
that hangs or crashes costs only its model.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

import numpy as np

OPSET = 17
IR_MAX = 10  # ORT 1.31 loads IR <= 13; onnx 1.23 writes 14 by default


# --- what an entry is --------------------------------------------------------------------------------------------

class Entry:
    """One corpus model: ``build()`` returns (module, example args) for torch, or an onnx.ModelProto."""

    def __init__(self, name: str, build: Callable[[], Any], tags: list[str], *, dims: dict[str, int] | None = None,
                 input_names: list[str] | None = None, output_names: list[str] | None = None,
                 dynamic_axes: dict[str, dict[int, str]] | None = None, inputs: Callable[[], dict] | None = None,
                 post: Callable[[Any], list[str]] | None = None, shapes: dict[str, list[int]] | None = None,
                 script: bool = False, extra: dict | None = None) -> None:
        self.name, self.build, self.tags = name, build, tags
        self.dims = dims or {}
        self.shapes = shapes or {}
        self.input_names, self.output_names = input_names, output_names
        self.dynamic_axes = dynamic_axes
        self.inputs = inputs  # name -> np.ndarray of real values (scalar controls, token ids), saved as NAME.npz
        self.post = post  # edits the exported onnx.ModelProto in place; returns notes
        self.script = script  # torch.jit.script the module first (If/Loop from Python control flow)
        self.extra = extra or {}


def _seed() -> None:
    import torch

    torch.manual_seed(0)
    np.random.seed(0)


# --- post-export edits -------------------------------------------------------------------------------------------

def _minus_one_outputs(model: Any, which: str = "outputs") -> list[str]:
    """Write dim_value -1 for every non-fixed (or every) dim, as paddle2onnx does for dynamic dims."""
    notes = []
    values = list(model.graph.output) if which in ("outputs", "both") else []
    if which in ("inputs", "both"):
        init = {i.name for i in model.graph.initializer}
        values += [v for v in model.graph.input if v.name not in init]
    for value in values:
        if not value.type.HasField("tensor_type"):
            continue
        for i, dim in enumerate(value.type.tensor_type.shape.dim):
            if dim.HasField("dim_param") or not dim.HasField("dim_value") or i == 0:
                dim.Clear()
                dim.dim_value = -1
        notes.append(f"{value.name}: dims written as dim_value -1 (paddle2onnx style)")
    return notes


def _minus_one_all(model: Any) -> list[str]:
    return _minus_one_outputs(model, "both")


def _fp16_types_agree(model: Any) -> list[str]:
    """Keep a ``.half()`` model fp16 throughout: ORT rejects the TorchScript export of a half BERT as is.

    The exporter writes ``Cast(to=float)`` on fp16 tensors inside the attention (the upcast of its SDPA symbolic) and
    the rest of the layer then mixes float32 activations with fp16 weights ("Type parameter (T) of Optype
    (LayerNormalization)/(MatMul) bound to different types"). Such a Cast is retargeted to fp16, and any
    LayerNormalization whose X still differs from its scale gets a Cast of X to the scale's type.
    """
    from onnx import AttributeProto, TensorProto, helper, shape_inference

    def types() -> dict[str, int]:
        inferred = shape_inference.infer_shapes(model)
        found = {v.name: v.type.tensor_type.elem_type for v in list(inferred.graph.value_info)
                 + list(inferred.graph.input) + list(inferred.graph.output)}
        found.update({i.name: i.data_type for i in model.graph.initializer})
        return found

    import numpy as np
    from onnx import numpy_helper

    def half(t: Any) -> None:
        if t.data_type == TensorProto.FLOAT:
            t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float16), t.name))

    casts = 0
    for node in model.graph.node:  # in a .half() model every float32 is the exporter's: the mask, SDPA's upcast
        for a in node.attribute:
            if node.op_type == "Cast" and a.name == "to" and a.i == TensorProto.FLOAT:
                a.i = TensorProto.FLOAT16
                casts += 1
            elif a.type == AttributeProto.TENSOR:
                half(a.t)
    for init in model.graph.initializer:
        half(init)
    for v in list(model.graph.input) + list(model.graph.output):
        if v.type.tensor_type.elem_type == TensorProto.FLOAT:
            v.type.tensor_type.elem_type = TensorProto.FLOAT16
    del model.graph.value_info[:]  # stale float32 declarations of what the Casts made
    known = types()
    nodes, fixed = [], 0
    for node in model.graph.node:
        if node.op_type == "LayerNormalization" and len(node.input) > 1:
            x, scale = known.get(node.input[0]), known.get(node.input[1])
            if x and scale and x != scale:
                cast = f"{node.input[0]}_as_scale_type_{fixed}"
                nodes.append(helper.make_node("Cast", [node.input[0]], [cast], name=f"{node.name}/CastX", to=scale))
                node.input[0] = cast
                fixed += 1
        nodes.append(node)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    notes = [f"{casts} Cast(to=float) of the exporter retargeted to fp16"] if casts else []
    return notes + ([f"{fixed} LayerNormalization input(s) cast to their scale's type"] if fixed else [])


# --- torch models ---------------------------------------------------------------------------------------------------

def _tv(fn: str, **kw: Any) -> Callable[[], Any]:
    def build():
        import torchvision

        _seed()
        return getattr(torchvision.models, fn)(weights=None, **kw)
    return build


def _img(n: int = 1, size: int = 64, channels: int = 3):
    import torch

    torch.manual_seed(1)
    return torch.rand(n, channels, size, size)


def _with_args(build: Callable[[], Any], args: Callable[[], tuple]) -> Callable[[], tuple]:
    return lambda: (build(), args())


def _half(build: Callable[[], tuple]) -> Callable[[], tuple]:
    def go():
        module, args = build()
        return module.half(), tuple(a.half() if a.is_floating_point() else a for a in args)
    return go


def _detection(kind: str) -> Callable[[], tuple]:
    def build():
        import torch
        from torchvision.models import detection
        from torchvision.models.detection.backbone_utils import mobilenet_backbone
        from torchvision.models.detection.faster_rcnn import FastRCNNPredictor, TwoMLPHead

        _seed()
        small = dict(min_size=256, max_size=256)
        if kind == "fasterrcnn_mobilenet":
            model = detection.fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None)
        elif kind == "ssdlite":
            model = detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)
        elif kind in ("retinanet_mobilenet", "fcos_mobilenet"):
            # A MobileNetV3 FPN (3 feature maps) keeps these small; the anchors match its 3 maps.
            from torchvision.models.detection.anchor_utils import AnchorGenerator

            backbone = mobilenet_backbone(backbone_name="mobilenet_v3_large", weights=None, fpn=True,
                                          trainable_layers=6)
            if kind == "retinanet_mobilenet":
                anchors = AnchorGenerator(((32, 40, 50), (64, 80, 101), (128, 161, 203)), ((0.5, 1.0, 2.0),) * 3)
                model = detection.RetinaNet(backbone, num_classes=21, anchor_generator=anchors, **small)
            else:
                anchors = AnchorGenerator(((8,), (16,), (32,)), ((1.0,),) * 3)
                model = detection.FCOS(backbone, num_classes=21, anchor_generator=anchors, **small)
        else:
            from torchvision.models.detection.anchor_utils import AnchorGenerator
            from torchvision.models.detection.mask_rcnn import MaskRCNNPredictor

            backbone = mobilenet_backbone(backbone_name="mobilenet_v3_large", weights=None, fpn=True,
                                          trainable_layers=6)
            heads = dict(box_head=TwoMLPHead(256 * 7 * 7, 128), box_predictor=FastRCNNPredictor(128, 5),
                         rpn_anchor_generator=AnchorGenerator(((32, 64, 128, 256, 512),) * 3, ((0.5, 1.0, 2.0),) * 3))
            if kind == "maskrcnn_mobilenet":
                model = detection.MaskRCNN(backbone, num_classes=None, mask_predictor=MaskRCNNPredictor(256, 256, 5),
                                           **heads, **small)
            elif kind == "keypointrcnn_mobilenet":
                from torchvision.models.detection.keypoint_rcnn import KeypointRCNNHeads, KeypointRCNNPredictor

                # a narrower keypoint head (4 × 128 channels instead of 8 × 512) keeps the ONNX under 40 MB
                model = detection.KeypointRCNN(backbone, num_classes=None, keypoint_head=KeypointRCNNHeads(256, (128,) * 4),
                                               keypoint_predictor=KeypointRCNNPredictor(128, 17), **heads, **small)
            else:
                raise ValueError(kind)
        model.eval()
        size = 320 if kind in ("fasterrcnn_mobilenet", "ssdlite") else 256
        torch.manual_seed(2)
        return model, ([torch.rand(3, size, size)],)
    return build


def _seg(fn: str) -> Callable[[], tuple]:
    def build():
        import torchvision

        _seed()
        model = getattr(torchvision.models.segmentation, fn)(weights=None, weights_backbone=None, num_classes=5)
        return model, (_img(1, 96),)
    return build


def _unwrap_dict(build: Callable[[], tuple], key: str) -> Callable[[], tuple]:
    def go():
        import torch

        module, args = build()

        class Wrap(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.inner = module

            def forward(self, x):
                return self.inner(x)[key]
        return Wrap().eval(), args
    return go


def _tiny_vit():
    import torch
    from torchvision.models.vision_transformer import VisionTransformer

    _seed()
    model = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=64, mlp_dim=128,
                              num_classes=10)
    return model, (torch.rand(1, 3, 32, 32),)


def _rnn(kind: str, layers: int = 2, bidirectional: bool = False):
    def build():
        import torch

        _seed()
        cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn": torch.nn.RNN}[kind]
        dirs = 2 if bidirectional else 1

        class Model(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.rnn = cls(16, 32, num_layers=layers, bidirectional=bidirectional)
                self.head = torch.nn.Linear(32 * dirs, 4)

            def forward(self, x, *state):
                if kind == "lstm":
                    y, (h, c) = self.rnn(x, (state[0], state[1]))
                    return self.head(y), h, c
                y, h = self.rnn(x, state[0])
                return self.head(y), h

        torch.manual_seed(3)
        x = torch.rand(10, 1, 16)
        h = torch.zeros(layers * dirs, 1, 32)
        return Model().eval(), ((x, h, torch.zeros_like(h)) if kind == "lstm" else (x, h))
    return build


def _vad():
    """Silero-VAD-like: audio chunk, a scalar int64 sample rate choosing a branch (If), LSTM state in/out."""
    import torch

    _seed()

    class Vad(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stft16 = torch.nn.Conv1d(1, 32, 64, stride=32)
            self.stft8 = torch.nn.Conv1d(1, 32, 32, stride=16)
            self.cell = torch.nn.LSTMCell(32, 32)
            self.out = torch.nn.Linear(32, 1)

        def forward(self, x: torch.Tensor, sr: torch.Tensor, state: torch.Tensor):
            if int(sr) == 16000:
                feats = self.stft16(x.unsqueeze(1))
            else:
                feats = self.stft8(x.unsqueeze(1))
            feats = feats.mean(dim=2)
            h, c = self.cell(feats, (state[0], state[1]))
            prob = torch.sigmoid(self.out(h))
            return prob, torch.stack([h, c])

    return Vad().eval(), (torch.rand(1, 512), torch.tensor(16000, dtype=torch.int64), torch.zeros(2, 1, 32))


def _if_model():
    import torch

    class IfModel(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = torch.nn.Linear(16, 16)
            self.b = torch.nn.Linear(16, 16)

        def forward(self, x: torch.Tensor):
            if bool(x.sum() > 0):
                y = self.a(x)
            else:
                y = self.b(x)
            return torch.relu(y)

    _seed()
    return IfModel().eval(), (torch.rand(4, 16),)


def _loop_model():
    import torch

    class LoopModel(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.cell = torch.nn.Linear(16, 16)

        def forward(self, x: torch.Tensor, steps: torch.Tensor):
            for _ in range(int(steps)):
                x = torch.tanh(self.cell(x))
            return x

    _seed()
    return LoopModel().eval(), (torch.rand(2, 16), torch.tensor(3, dtype=torch.int64))


def _threshold_model():
    import torch

    class Threshold(torch.nn.Module):
        """Scores above a scalar float threshold: NonZero (data-dependent size) + gather."""

        def __init__(self) -> None:
            super().__init__()
            self.score = torch.nn.Linear(8, 1)

        def forward(self, x: torch.Tensor, threshold: torch.Tensor):
            s = torch.sigmoid(self.score(x)).squeeze(-1)
            keep = torch.nonzero(s > threshold).squeeze(-1)
            return s.index_select(0, keep), keep

    _seed()
    return Threshold().eval(), (torch.rand(64, 8), torch.tensor(0.5))


def _nms_model():
    import torch
    import torchvision

    class Nms(torch.nn.Module):
        def forward(self, boxes: torch.Tensor, scores: torch.Tensor):
            keep = torchvision.ops.nms(boxes, scores, 0.5)
            return boxes[keep], scores[keep]

    torch.manual_seed(4)
    xy = torch.rand(200, 2) * 200
    wh = torch.rand(200, 2) * 50 + 1
    return Nms().eval(), (torch.cat([xy, xy + wh], dim=1), torch.rand(200))


def _topk_nonzero():
    import torch

    class TopK(torch.nn.Module):
        def forward(self, x):
            scores = torch.softmax(x, dim=-1)
            values, indices = torch.topk(scores, k=5, dim=-1)
            return values, indices, torch.nonzero(scores > 0.01)

    torch.manual_seed(5)
    return TopK().eval(), (torch.randn(4, 100),)


def _ocr_like():
    """PaddleOCR-DB-like detector: conv backbone, upsample back to the input size, sigmoid probability map."""
    import torch

    class Db(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.down = torch.nn.Sequential(
                torch.nn.Conv2d(3, 16, 3, stride=2, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
                torch.nn.Conv2d(16, 32, 3, stride=2, padding=1), torch.nn.BatchNorm2d(32), torch.nn.ReLU())
            self.head = torch.nn.Conv2d(32, 1, 1)

        def forward(self, x):
            y = self.head(self.down(x))
            y = torch.nn.functional.interpolate(y, size=x.shape[2:], mode="bilinear", align_corners=False)
            return torch.sigmoid(y)

    _seed()
    return Db().eval(), (_img(1, 64),)


def _ocr_rec_like():
    """CRNN-like recognizer: conv features -> BiLSTM over the width -> per-step class scores."""
    import torch

    class Crnn(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Sequential(torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.ReLU(),
                                            torch.nn.MaxPool2d((2, 2)), torch.nn.Conv2d(32, 64, 3, padding=1),
                                            torch.nn.ReLU())
            self.rnn = torch.nn.LSTM(64, 32, bidirectional=True, batch_first=True)
            self.fc = torch.nn.Linear(64, 40)

        def forward(self, x):
            # mean over the height = AdaptiveAvgPool2d((1, None)), which the TorchScript exporter of torch 2.11
            # rejects ("output_size is not constant") for a dynamic width
            f = self.conv(x).mean(dim=2).permute(0, 2, 1)
            y, _ = self.rnn(f)
            return torch.softmax(self.fc(y), dim=-1)

    _seed()
    torch.manual_seed(6)
    return Crnn().eval(), (torch.rand(1, 3, 32, 100),)


def _decoder_kv(layers: int = 2, d: int = 64, heads: int = 4, vocab: int = 500):
    import torch

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln1 = torch.nn.LayerNorm(d)
            self.qkv = torch.nn.Linear(d, 3 * d)
            self.proj = torch.nn.Linear(d, d)
            self.ln2 = torch.nn.LayerNorm(d)
            self.mlp = torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(), torch.nn.Linear(4 * d, d))

        def forward(self, x, past_k, past_v):
            b, t, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
            q = q.view(b, t, heads, d // heads).transpose(1, 2)
            k = torch.cat([past_k, k.view(b, t, heads, d // heads).transpose(1, 2)], dim=2)
            v = torch.cat([past_v, v.view(b, t, heads, d // heads).transpose(1, 2)], dim=2)
            att = torch.softmax(q @ k.transpose(-1, -2) / (d // heads) ** 0.5, dim=-1)
            y = (att @ v).transpose(1, 2).reshape(b, t, d)
            x = x + self.proj(y)
            return x + self.mlp(self.ln2(x)), k, v

    class Decoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = torch.nn.Embedding(vocab, d)
            self.blocks = torch.nn.ModuleList([Block() for _ in range(layers)])
            self.head = torch.nn.Linear(d, vocab)

        def forward(self, input_ids, *past):
            x = self.emb(input_ids)
            present = []
            for i, block in enumerate(self.blocks):
                x, k, v = block(x, past[2 * i], past[2 * i + 1])
                present += [k, v]
            return (self.head(x), *present)

    _seed()
    past = [torch.zeros(1, heads, 7, d // heads) for _ in range(2 * layers)]
    return Decoder().eval(), (torch.tensor([[3]], dtype=torch.int64), *past)


def _kv_names(layers: int = 2):
    ins = ["input_ids"] + [f"past_{kv}_{i}" for i in range(layers) for kv in ("key", "value")]
    outs = ["logits"] + [f"present_{kv}_{i}" for i in range(layers) for kv in ("key", "value")]
    axes = {"input_ids": {0: "batch", 1: "seq"}}
    for n in ins[1:]:
        axes[n] = {0: "batch", 2: "past_seq"}
    for n in outs[1:]:
        axes[n] = {0: "batch", 2: "total_seq"}
    axes["logits"] = {0: "batch", 1: "seq"}
    return ins, outs, axes


def _hf(kind: str):
    def build():
        import torch
        import transformers as tf

        _seed()
        if kind == "bert":
            cfg = tf.BertConfig(vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                                intermediate_size=128, max_position_embeddings=128)
            model = tf.BertModel(cfg)
        elif kind == "roberta":
            cfg = tf.RobertaConfig(vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                                   intermediate_size=128, max_position_embeddings=130)
            model = tf.RobertaForSequenceClassification(cfg)
        elif kind == "gpt2":
            cfg = tf.GPT2Config(vocab_size=1000, n_embd=64, n_layer=2, n_head=2, n_positions=128, use_cache=False,
                                bos_token_id=1, eos_token_id=2)
            model = tf.GPT2LMHeadModel(cfg)
        elif kind == "t5":
            cfg = tf.T5Config(vocab_size=1000, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2,
                              num_heads=4, use_cache=False, decoder_start_token_id=0, pad_token_id=0)
            model = tf.T5ForConditionalGeneration(cfg)
        elif kind == "bart":
            cfg = tf.BartConfig(vocab_size=1000, d_model=64, encoder_layers=2, decoder_layers=2,
                                encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=128,
                                decoder_ffn_dim=128, max_position_embeddings=128, use_cache=False)
            model = tf.BartForConditionalGeneration(cfg)
        else:
            raise ValueError(kind)
        model.eval()

        class Wrap(torch.nn.Module):
            """Tensors out of the ModelOutput (transformers 5 models read their submodules' outputs by attribute:
            return_dict stays on)."""

            def __init__(self) -> None:
                super().__init__()
                self.inner = model

            def forward(self, input_ids, attention_mask, *rest):
                if kind in ("t5", "bart"):
                    return self.inner(input_ids=input_ids, attention_mask=attention_mask, decoder_input_ids=rest[0],
                                      use_cache=False).logits
                if kind == "bert":
                    out = self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=rest[0])
                    return out.last_hidden_state, out.pooler_output
                kw = {"use_cache": False} if kind == "gpt2" else {}
                return self.inner(input_ids=input_ids, attention_mask=attention_mask, **kw).logits

        torch.manual_seed(7)
        ids = torch.randint(1, 1000, (1, 16))
        mask = torch.ones(1, 16, dtype=torch.int64)
        rest = (torch.zeros(1, 16, dtype=torch.int64),) if kind == "bert" else (
            (torch.randint(1, 1000, (1, 8)),) if kind in ("t5", "bart") else ())
        return Wrap().eval(), (ids, mask, *rest)
    return build


def _hf_io(kind: str):
    ins = ["input_ids", "attention_mask"] + (["token_type_ids"] if kind == "bert" else
                                              ["decoder_input_ids"] if kind in ("t5", "bart") else [])
    outs = ["last_hidden_state", "pooler_output"] if kind == "bert" else ["logits"]
    axes = {n: {0: "batch", 1: "seq"} for n in ins}
    if kind in ("t5", "bart"):
        axes["decoder_input_ids"] = {0: "batch", 1: "dec_seq"}
        axes["logits"] = {0: "batch", 1: "dec_seq"}
    elif kind == "bert":
        axes["last_hidden_state"] = {0: "batch", 1: "seq"}
        axes["pooler_output"] = {0: "batch"}
    else:
        axes["logits"] = {0: "batch", 1: "seq"}
    return ins, outs, axes


def _hf_inputs(kind: str):
    def make():
        rng = np.random.default_rng(7)
        seq = 16
        out = {"input_ids": rng.integers(1, 1000, (1, seq), dtype=np.int64),
               "attention_mask": np.ones((1, seq), np.int64)}
        if kind == "bert":
            out["token_type_ids"] = np.zeros((1, seq), np.int64)
        if kind in ("t5", "bart"):
            out["decoder_input_ids"] = rng.integers(1, 1000, (1, 8), dtype=np.int64)
        return out
    return make


# --- onnx.helper models (ai.onnx.ml: no exporter in these libraries) -------------------------------------------

def _ml_linear_zipmap():
    from onnx import TensorProto, helper

    rng = np.random.default_rng(8)
    coefs = rng.standard_normal(3 * 4).astype(np.float32).tolist()
    nodes = [
        helper.make_node("Scaler", ["X"], ["scaled"], domain="ai.onnx.ml", offset=[0.0] * 4, scale=[0.5] * 4),
        helper.make_node("LinearClassifier", ["scaled"], ["label", "probabilities"], domain="ai.onnx.ml",
                         coefficients=coefs, intercepts=[0.1, 0.2, 0.3], classlabels_ints=[0, 1, 2],
                         post_transform="SOFTMAX"),
        helper.make_node("ZipMap", ["probabilities"], ["output_probability"], domain="ai.onnx.ml",
                         classlabels_int64s=[0, 1, 2]),
    ]
    graph = helper.make_graph(nodes, "linear_zipmap", [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 4])],
                              [helper.make_tensor_value_info("label", TensorProto.INT64, ["N"]),
                               helper.make_value_info("output_probability", helper.make_sequence_type_proto(
                                   helper.make_map_type_proto(TensorProto.INT64, helper.make_tensor_type_proto(
                                       TensorProto.FLOAT, []))))])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid("ai.onnx.ml", 3)])


def _ml_normalizer_regressor():
    from onnx import TensorProto, helper

    rng = np.random.default_rng(9)
    nodes = [
        helper.make_node("Normalizer", ["X"], ["normed"], domain="ai.onnx.ml", norm="L2"),
        helper.make_node("LinearRegressor", ["normed"], ["variable"], domain="ai.onnx.ml",
                         coefficients=rng.standard_normal(6).astype(np.float32).tolist(), intercepts=[0.5], targets=1),
    ]
    graph = helper.make_graph(nodes, "normalizer_regressor",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 6])],
                              [helper.make_tensor_value_info("variable", TensorProto.FLOAT, ["N", 1])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid("ai.onnx.ml", 3)])


def _ml_tree_then_matmul():
    """TreeEnsembleRegressor (CPU only) feeding a MatMul (CUDA): a CPU->device boundary in an ML pipeline."""
    from onnx import TensorProto, helper, numpy_helper

    nodes = [
        helper.make_node("TreeEnsembleRegressor", ["X"], ["tree_out"], domain="ai.onnx.ml", n_targets=4,
                         nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2], nodes_featureids=[0, 0, 0],
                         nodes_values=[0.5, 0.0, 0.0], nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"],
                         nodes_truenodeids=[1, 0, 0], nodes_falsenodeids=[2, 0, 0],
                         nodes_missing_value_tracks_true=[0, 0, 0],
                         target_treeids=[0] * 8, target_nodeids=[1, 1, 1, 1, 2, 2, 2, 2],
                         target_ids=[0, 1, 2, 3] * 2, target_weights=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]),
        helper.make_node("MatMul", ["tree_out", "W"], ["Y"]),
    ]
    w = numpy_helper.from_array(np.random.default_rng(10).standard_normal((4, 8)).astype(np.float32), "W")
    graph = helper.make_graph(nodes, "tree_matmul", [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 3])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 8])], [w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid("ai.onnx.ml", 3)])


# --- the corpus -----------------------------------------------------------------------------------------------------

def corpus() -> list[Entry]:
    e: list[Entry] = []
    img64 = lambda: (_img(1, 64),)  # noqa: E731
    for name, fn, kw in (("resnet18", "resnet18", {}), ("mobilenet_v3_small", "mobilenet_v3_small", {}),
                         ("efficientnet_b0", "efficientnet_b0", {}), ("squeezenet1_1", "squeezenet1_1", {}),
                         ("shufflenet_v2_x0_5", "shufflenet_v2_x0_5", {}), ("regnet_y_400mf", "regnet_y_400mf", {}),
                         ("mnasnet0_5", "mnasnet0_5", {})):
        e.append(Entry(name, _with_args(_tv(fn, **kw), img64), ["classification"],
                       input_names=["image"], output_names=["logits"], dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}},
                       dims={"batch": 2}))
    e.append(Entry("vit_tiny", _tiny_vit, ["classification", "transformer"], input_names=["image"],
                   output_names=["logits"]))
    for kind in ("fasterrcnn_mobilenet", "ssdlite", "retinanet_mobilenet", "fcos_mobilenet", "maskrcnn_mobilenet",
                 "keypointrcnn_mobilenet"):
        e.append(Entry(kind, _detection(kind), ["detection"], input_names=["image"]))
    e.append(Entry("fasterrcnn_mobilenet_minus1", _detection("fasterrcnn_mobilenet"), ["detection", "minus_one"],
                   input_names=["image"], post=_minus_one_outputs))
    e.append(Entry("deeplabv3_mobilenet", _unwrap_dict(_seg("deeplabv3_mobilenet_v3_large"), "out"), ["segmentation"],
                   input_names=["image"], output_names=["out"]))
    e.append(Entry("lraspp_mobilenet", _unwrap_dict(_seg("lraspp_mobilenet_v3_large"), "out"), ["segmentation"],
                   input_names=["image"], output_names=["out"]))
    e.append(Entry("lstm_state", _rnn("lstm"), ["recurrent", "state"], input_names=["x", "h0", "c0"],
                   output_names=["y", "hn", "cn"]))
    e.append(Entry("gru_state", _rnn("gru"), ["recurrent", "state"], input_names=["x", "h0"], output_names=["y", "hn"]))
    e.append(Entry("bilstm_state", _rnn("lstm", 1, True), ["recurrent", "state"], input_names=["x", "h0", "c0"],
                   output_names=["y", "hn", "cn"]))
    e.append(Entry("rnn_tanh_state", _rnn("rnn"), ["recurrent", "state"], input_names=["x", "h0"],
                   output_names=["y", "hn"]))
    e.append(Entry("vad_like", _vad, ["recurrent", "scalar_control", "if", "state"], input_names=["input", "sr", "state"],
                   output_names=["output", "stateN"], script=True,
                   inputs=lambda: {"sr": np.array(16000, np.int64)}))
    e.append(Entry("ocr_det_minus1", _ocr_like, ["segmentation", "minus_one"], input_names=["x"],
                   output_names=["sigmoid_0.tmp_0"], post=_minus_one_all, shapes={"x": [1, 3, 64, 64]},
                   dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}, "sigmoid_0.tmp_0": {0: "b", 2: "h", 3: "w"}}))
    e.append(Entry("ocr_rec_minus1", _ocr_rec_like, ["recurrent", "minus_one"], input_names=["x"],
                   output_names=["softmax_0.tmp_0"], post=_minus_one_all, shapes={"x": [1, 3, 32, 100]},
                   dynamic_axes={"x": {0: "b", 3: "w"}, "softmax_0.tmp_0": {0: "b", 1: "t"}}))
    for kind in ("bert", "roberta", "gpt2", "t5", "bart"):
        ins, outs, axes = _hf_io(kind)
        e.append(Entry(f"{kind}_tiny", _hf(kind), ["transformer"], input_names=ins, output_names=outs,
                       dynamic_axes=axes, inputs=_hf_inputs(kind)))
    ins, outs, axes = _kv_names()
    e.append(Entry("decoder_kv", _decoder_kv, ["transformer", "state", "past_kv"], input_names=ins, output_names=outs,
                   dynamic_axes=axes, dims={"batch": 1, "seq": 1, "past_seq": 7},
                   inputs=lambda: {"input_ids": np.array([[3]], np.int64)}, extra={"decode_steps": 8}))
    e.append(Entry("threshold_nonzero", _threshold_model, ["scalar_control", "data_dependent"],
                   input_names=["x", "threshold"], output_names=["scores", "keep"],
                   inputs=lambda: {"threshold": np.array(0.5, np.float32)}))
    e.append(Entry("threshold_nonzero_empty", _threshold_model, ["scalar_control", "data_dependent", "empty"],
                   input_names=["x", "threshold"], output_names=["scores", "keep"],
                   inputs=lambda: {"threshold": np.array(2.0, np.float32)}))
    e.append(Entry("nms", _nms_model, ["detection", "data_dependent"], input_names=["boxes", "scores"],
                   output_names=["kept_boxes", "kept_scores"]))
    e.append(Entry("topk_nonzero", _topk_nonzero, ["data_dependent"], input_names=["x"]))
    e.append(Entry("if_branch", _if_model, ["if"], input_names=["x"], output_names=["y"], script=True))
    e.append(Entry("loop_steps", _loop_model, ["loop", "scalar_control"], input_names=["x", "steps"],
                   output_names=["y"], script=True, inputs=lambda: {"steps": np.array(3, np.int64)}))
    e.append(Entry("mobilenet_v3_small_fp16", _half(_with_args(_tv("mobilenet_v3_small"), img64)), ["classification", "fp16"],
                   input_names=["image"], output_names=["logits"]))
    e.append(Entry("resnet18_fp16", _half(_with_args(_tv("resnet18"), img64)), ["classification", "fp16"],
                   input_names=["image"], output_names=["logits"]))
    e.append(Entry("bert_tiny_fp16", _half(_hf("bert")), ["transformer", "fp16"], input_names=_hf_io("bert")[0],
                   post=_fp16_types_agree,
                   output_names=_hf_io("bert")[1], dynamic_axes=_hf_io("bert")[2], inputs=_hf_inputs("bert")))
    e.append(Entry("ml_linear_zipmap", _ml_linear_zipmap, ["ai.onnx.ml", "map_output"], dims={"N": 5}))
    e.append(Entry("ml_normalizer_regressor", _ml_normalizer_regressor, ["ai.onnx.ml"], dims={"N": 5}))
    e.append(Entry("ml_tree_matmul", _ml_tree_then_matmul, ["ai.onnx.ml", "boundary"], dims={"N": 5}))
    return e


# --- export -----------------------------------------------------------------------------------------------------------

def _torch_export(entry: Entry, module: Any, args: tuple, path: Path) -> tuple[str, list[str]]:
    import torch

    notes: list[str] = []
    kw: dict[str, Any] = dict(opset_version=OPSET)
    if entry.input_names:
        kw["input_names"] = entry.input_names
    if entry.output_names:
        kw["output_names"] = entry.output_names
    errors = []
    target = module
    if entry.script:
        try:
            target = torch.jit.script(module)
        except Exception as exc:  # noqa: BLE001 - traced instead; the note says so
            notes.append(f"torch.jit.script failed ({type(exc).__name__}: {str(exc)[:200]}); traced")
    with torch.no_grad():
        try:
            torch.onnx.export(target, args, str(path), dynamo=False,
                              dynamic_axes=entry.dynamic_axes or None, **kw)
            return "torchscript", notes
        except Exception as exc:  # noqa: BLE001 - try the other exporter
            errors.append(f"dynamo=False: {type(exc).__name__}: {str(exc)[:400]}")
        try:
            dyn = None
            if entry.dynamic_axes:
                dyn = {n: {a: torch.export.Dim.AUTO for a in axes} for n, axes in entry.dynamic_axes.items()
                       if entry.input_names and n in entry.input_names}
                names = entry.input_names or []
                dyn = tuple(dyn.get(n) for n in names[:len(args)]) if dyn else None
            torch.onnx.export(module, args, str(path), dynamo=True, dynamic_shapes=dyn, **kw)
            notes.append("TorchScript exporter failed: " + errors[0])
            return "dynamo", notes
        except Exception as exc:  # noqa: BLE001
            errors.append(f"dynamo=True: {type(exc).__name__}: {str(exc)[:400]}")
    raise RuntimeError(" | ".join(errors))


def export_one(entry: Entry, out: Path) -> dict:
    import onnx

    t0 = time.time()
    side: dict[str, Any] = {"name": entry.name, "onnx": f"{entry.name}.onnx", "tags": entry.tags, "dims": entry.dims,
                            "shapes": entry.shapes, "inputs": None, "exporter": None, "notes": [], **entry.extra}
    path = out / f"{entry.name}.onnx"
    try:
        built = entry.build()
        if isinstance(built, onnx.ModelProto):
            model = built
            side["exporter"] = "onnx.helper"
        else:
            module, args = built
            module.eval()
            side["exporter"], notes = _torch_export(entry, module, args, path)
            side["notes"] += notes
            model = onnx.load(str(path))
        if entry.post:
            side["notes"] += entry.post(model)
        if model.ir_version > IR_MAX:
            model.ir_version = IR_MAX
        onnx.save(model, str(path))
        onnx.checker.check_model(str(path))
        if entry.inputs:
            arrays = entry.inputs()
            np.savez(out / f"{entry.name}.npz", **arrays)
            side["inputs"] = f"{entry.name}.npz"
        side["nodes"] = len(model.graph.node)
        side["ops"] = sorted({n.op_type for n in model.graph.node})
        side["opset"] = {o.domain or "ai.onnx": o.version for o in model.opset_import}
        side["bytes"] = path.stat().st_size
        side["inputs_declared"] = [_vi(v) for v in model.graph.input
                                   if v.name not in {i.name for i in model.graph.initializer}]
        side["outputs_declared"] = [_vi(v) for v in model.graph.output]
    except Exception as exc:  # noqa: BLE001 - a failed export is recorded, not fatal
        side["failed"] = f"{type(exc).__name__}: {exc}"[:2000]
        side["traceback"] = traceback.format_exc()[-3000:]
        if path.exists():
            path.unlink()
    side["export_s"] = round(time.time() - t0, 2)
    (out / f"{entry.name}.json").write_text(json.dumps(side, indent=1), encoding="utf-8")
    return side


def _vi(v: Any) -> dict:
    t = v.type
    if not t.HasField("tensor_type"):
        return {"name": v.name, "type": str(t.WhichOneof("value"))}
    dims = [d.dim_param if d.HasField("dim_param") else (d.dim_value if d.HasField("dim_value") else None)
            for d in t.tensor_type.shape.dim]
    return {"name": v.name, "elem_type": t.tensor_type.elem_type, "dims": dims}


def _worker(name: str, out: str) -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    import torch

    torch.set_num_threads(2)
    entry = next(e for e in corpus() if e.name == name)
    export_one(entry, Path(out))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    p.add_argument("--timeout", type=float, default=240.0)
    p.add_argument("--only", default="")
    p.add_argument("--deadline", type=float, default=0.0,
                   help="seconds: then running exports are stopped and the rest not started (0: none)")
    a = p.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    names = [e.name for e in corpus()]
    if a.only:
        wanted = set(a.only.split(","))
        names = [n for n in names if n in wanted]
    slow = {e.name for e in corpus() if "detection" in e.tags or "segmentation" in e.tags}
    start_order = [n for n in names if n in slow] + [n for n in names if n not in slow]  # the slow ones first
    ctx = mp.get_context("spawn")
    running: dict[str, tuple[Any, float]] = {}
    todo = list(start_order)
    t0 = time.time()
    while todo or running:
        if a.deadline and time.time() - t0 > a.deadline:
            for name in todo:
                (out / f"{name}.json").write_text(json.dumps({"name": name, "onnx": None,
                                                              "failed": "not exported: the deadline was reached"}))
            todo = []
        while todo and len(running) < a.jobs:
            name = todo.pop(0)
            proc = ctx.Process(target=_worker, args=(name, str(out)))
            proc.start()
            running[name] = (proc, time.time())
        time.sleep(0.2)
        for name, (proc, started) in list(running.items()):
            late = a.deadline and time.time() - t0 > a.deadline
            if proc.is_alive() and time.time() - started < a.timeout and not late:
                continue
            if proc.is_alive():
                proc.kill()
                proc.join()
                reason = (f"export stopped at the deadline ({a.deadline:.0f} s)" if late
                          else f"export timed out after {a.timeout:.0f} s")
            else:
                proc.join()
                reason = f"exporter process died with exit code {proc.exitcode}" if proc.exitcode else ""
            del running[name]
            side_path = out / f"{name}.json"
            if reason and not side_path.exists():
                side_path.write_text(json.dumps({"name": name, "failed": reason, "onnx": None}), encoding="utf-8")
            side = json.loads(side_path.read_text(encoding="utf-8"))
            status = ("FAILED " + side["failed"][:200]) if side.get("failed") else \
                f"{side['exporter']} {side['nodes']} nodes {side['bytes'] / 2**20:.1f} MiB"
            print(f"[{time.time() - t0:6.1f}s] {name}: {status}", flush=True)
    sides = [json.loads((out / f"{n}.json").read_text(encoding="utf-8")) for n in names]
    (out / "corpus.json").write_text(json.dumps({"models": sides}, indent=1), encoding="utf-8")
    ok = sum(1 for s in sides if not s.get("failed"))
    print(f"exported {ok}/{len(sides)} models into {out} in {time.time() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
