#!/usr/bin/env python3
"""Turns a Piper voice (VOICE.onnx + VOICE.onnx.json) into a checkpoint lingcast's
VITS engine loads: model.safetensors with transformers' VitsModel tensor names,
config.json (transformers' VitsConfig fields, plus lingcast's "resblock_type"),
and piper.json (the voice's own config, for its phoneme map and espeak-ng voice).

Run once at install time (scripts/install-deps.sh), in the project's virtual
environment; it needs the `onnx` package only to read the protobuf, never
onnxruntime. Usage:

    piper_to_checkpoint.py VOICE.onnx OUT_DIR [--source TEXT]

Why a conversion and not a reader: Piper's ONNX export folds weight norm into
anonymous constants ("onnx::Conv_8168") and the elementwise-affine flow's
log-scale into exp(-logs); which layer each belongs to is only in the graph (the
consumer node's name, "/flow/flows.6/enc/in_layers.0/Conv"). Resolving that once
here keeps the C++ loader one format (safetensors) with named tensors.
"""

import argparse
import json
import os
import re
import shutil
import sys

import numpy as np

from checkpoint_files import replaced_directory, write_safetensors

try:
    import onnx
    from onnx import numpy_helper
except ImportError:  # pragma: no cover - the install script installs it
    sys.exit("piper_to_checkpoint: the 'onnx' package is missing (scripts/install-deps.sh installs it in .venv)")


def fail(message):
    sys.exit(f"piper_to_checkpoint: {message}")


def original_names(model):
    """Every weight under its name in the original VITS code (enc_p.*, dp.*, flow.*, dec.*)."""
    graph = model.graph
    initializers = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    weights = {}
    for name, value in initializers.items():
        if re.match(r"^(enc_p|dp|flow|dec)\.", name):
            weights[name] = value
    # Anonymous initializers: name them after the node that consumes them.
    for node in graph.node:
        path = node.name.strip("/").split("/")
        for index, name in enumerate(node.input):
            if name not in initializers or name in weights:
                continue
            if node.op_type == "Gather" and node.name == "/enc_p/emb/Gather" and index == 0:
                weights["enc_p.emb.weight"] = initializers[name]
            elif node.op_type == "Conv" and name.startswith("onnx::") and index in (1, 2) and len(path) >= 2:
                module = ".".join(path[:-1])
                weights[module + (".weight" if index == 1 else ".bias")] = initializers[name]
    # exp(-logs) of the elementwise-affine flow, folded by the exporter.
    folded = initializers.get("/dp/flows.0/Exp_output_0")
    if folded is not None:
        weights["dp.flows.0.logs"] = -np.log(folded)
    return weights


def node_attributes(model):
    """Conv / ConvTranspose attributes by module path ("dec.ups.0")."""
    out = {}
    for node in model.graph.node:
        if node.op_type in ("Conv", "ConvTranspose"):
            module = ".".join(node.name.strip("/").split("/")[:-1])
            out[module] = {a.name: list(onnx.helper.get_attribute_value(a)) for a in node.attribute
                           if a.type == onnx.AttributeProto.INTS}
    return out


def count(weights, pattern):
    indices = {int(m.group(1)) for name in weights for m in [re.match(pattern, name)] if m}
    return (max(indices) + 1) if indices else 0


def need(weights, name):
    if name not in weights:
        fail(f"the voice has no tensor '{name}': not a Piper VITS voice lingcast can convert")
    return weights[name]


def convert(weights, attributes, voice):
    """(HF-named tensors, config.json) from the original-named ones."""
    out = {}

    def put(name, value):
        out[name] = np.ascontiguousarray(value, dtype=np.float32)

    def conv(src, dst, bias=True):
        put(dst + ".weight", need(weights, src + ".weight"))
        if bias:
            put(dst + ".bias", need(weights, src + ".bias"))

    emb = need(weights, "enc_p.emb.weight")
    vocab_size, hidden = emb.shape
    put("text_encoder.embed_tokens.weight", emb)
    layers = count(weights, r"^enc_p\.encoder\.attn_layers\.(\d+)\.")
    if layers == 0:
        fail("the voice has no text-encoder layers")
    window = 0
    for i in range(layers):
        src, dst = f"enc_p.encoder.attn_layers.{i}", f"text_encoder.encoder.layers.{i}.attention"
        for a, b in (("q", "q_proj"), ("k", "k_proj"), ("v", "v_proj"), ("o", "out_proj")):
            put(f"{dst}.{b}.weight", need(weights, f"{src}.conv_{a}.weight")[:, :, 0])
            put(f"{dst}.{b}.bias", need(weights, f"{src}.conv_{a}.bias"))
        rel_k = need(weights, f"{src}.emb_rel_k")
        put(f"{dst}.emb_rel_k", rel_k)
        put(f"{dst}.emb_rel_v", need(weights, f"{src}.emb_rel_v"))
        window = (rel_k.shape[1] - 1) // 2
        layer = f"text_encoder.encoder.layers.{i}"
        for src_norm, dst_norm in (("norm_layers_1", "layer_norm"), ("norm_layers_2", "final_layer_norm")):
            put(f"{layer}.{dst_norm}.weight", need(weights, f"enc_p.encoder.{src_norm}.{i}.gamma"))
            put(f"{layer}.{dst_norm}.bias", need(weights, f"enc_p.encoder.{src_norm}.{i}.beta"))
        conv(f"enc_p.encoder.ffn_layers.{i}.conv_1", f"{layer}.feed_forward.conv_1")
        conv(f"enc_p.encoder.ffn_layers.{i}.conv_2", f"{layer}.feed_forward.conv_2")
    heads = hidden // need(weights, "enc_p.encoder.attn_layers.0.emb_rel_k").shape[2]
    ffn = need(weights, "enc_p.encoder.ffn_layers.0.conv_1.weight")
    conv("enc_p.proj", "text_encoder.project")
    flow_size = need(weights, "enc_p.proj.weight").shape[0] // 2

    # Stochastic duration predictor: original flows 3, 5, 7 (ConvFlows; even ones
    # are Flips, flows.1 is never used at inference and Piper leaves it out) are
    # transformers' flows 2, 3, 4.
    if "dp.flows.0.m" not in weights:
        fail("the voice's duration predictor is not the stochastic one (use_sdp=false is not converted yet)")
    conv("dp.pre", "duration_predictor.conv_pre")
    conv("dp.proj", "duration_predictor.conv_proj")

    def dds(src, dst):
        n = count(weights, rf"^{re.escape(src)}\.convs_sep\.(\d+)\.")
        for j in range(n):
            conv(f"{src}.convs_sep.{j}", f"{dst}.convs_dilated.{j}")
            conv(f"{src}.convs_1x1.{j}", f"{dst}.convs_pointwise.{j}")
            for norm in ("norms_1", "norms_2"):
                put(f"{dst}.{norm}.{j}.weight", need(weights, f"{src}.{norm}.{j}.gamma"))
                put(f"{dst}.{norm}.{j}.bias", need(weights, f"{src}.{norm}.{j}.beta"))
        return n

    dds_layers = dds("dp.convs", "duration_predictor.conv_dds")
    put("duration_predictor.flows.0.translate", need(weights, "dp.flows.0.m"))
    put("duration_predictor.flows.0.log_scale", need(weights, "dp.flows.0.logs"))
    conv_flows = sorted({int(m.group(1)) for name in weights for m in [re.match(r"^dp\.flows\.(\d+)\.pre\.", name)] if m})
    num_flows = len(conv_flows) + 1  # with the unused first one
    if conv_flows != [3 + 2 * k for k in range(len(conv_flows))]:
        fail(f"unexpected duration-predictor flows {conv_flows}")
    for k, src_index in enumerate(conv_flows):
        src, dst = f"dp.flows.{src_index}", f"duration_predictor.flows.{k + 2}"
        conv(f"{src}.pre", f"{dst}.conv_pre")
        conv(f"{src}.proj", f"{dst}.conv_proj")
        dds(f"{src}.convs", f"{dst}.conv_dds")
    bins = (need(weights, f"dp.flows.{conv_flows[0]}.proj.weight").shape[0] + 1) // 3

    # Prior flow: original coupling layers 0, 2, 4, 6 (odd ones are Flips).
    couplings = sorted({int(m.group(1)) for name in weights for m in [re.match(r"^flow\.flows\.(\d+)\.pre\.", name)] if m})
    wavenet_layers = 0
    for k, src_index in enumerate(couplings):
        src, dst = f"flow.flows.{src_index}", f"flow.flows.{k}"
        conv(f"{src}.pre", f"{dst}.conv_pre")
        conv(f"{src}.post", f"{dst}.conv_post")
        wavenet_layers = count(weights, rf"^{re.escape(src)}\.enc\.in_layers\.(\d+)\.")
        for j in range(wavenet_layers):
            conv(f"{src}.enc.in_layers.{j}", f"{dst}.wavenet.in_layers.{j}")
            conv(f"{src}.enc.res_skip_layers.{j}", f"{dst}.wavenet.res_skip_layers.{j}")
    first = f"flow.flows.{couplings[0]}.enc.in_layers"
    wavenet_kernel = need(weights, f"{first}.0.weight").shape[2]
    dilations = [attributes.get(f"{first}.{j}", {}).get("dilations", [1])[0] for j in range(wavenet_layers)]
    dilation_rate = dilations[1] if len(dilations) > 1 else 1

    # HiFi-GAN.
    conv("dec.conv_pre", "decoder.conv_pre")
    ups = count(weights, r"^dec\.ups\.(\d+)\.")
    rates, up_kernels = [], []
    for i in range(ups):
        conv(f"dec.ups.{i}", f"decoder.upsampler.{i}")
        strides = attributes.get(f"dec.ups.{i}", {}).get("strides")
        if not strides:
            fail(f"cannot find the stride of dec.ups.{i} in the graph")
        rates.append(strides[0])
        up_kernels.append(need(weights, f"dec.ups.{i}.weight").shape[2])
    blocks = count(weights, r"^dec\.resblocks\.(\d+)\.")
    kernels_per_up = blocks // ups
    resblock_type = "2" if f"dec.resblocks.0.convs.0.weight" in weights else "1"
    kernel_sizes, dilation_sizes = [], []
    for b in range(blocks):
        src, dst = f"dec.resblocks.{b}", f"decoder.resblocks.{b}"
        names = ["convs"] if resblock_type == "2" else ["convs1", "convs2"]
        block_dilations = []
        for n_name in names:
            n = count(weights, rf"^{re.escape(src)}\.{n_name}\.(\d+)\.")
            for j in range(n):
                conv(f"{src}.{n_name}.{j}", f"{dst}.{'convs1' if n_name == 'convs' else n_name}.{j}")
                if n_name != "convs2":
                    block_dilations.append(attributes.get(f"{src}.{n_name}.{j}", {}).get("dilations", [1])[0])
        if b < kernels_per_up:
            kernel_sizes.append(out[f"{dst}.convs1.0.weight"].shape[2])
            dilation_sizes.append(block_dilations)
    put("decoder.conv_post.weight", need(weights, "dec.conv_post.weight"))
    if "dec.conv_post.bias" in weights:
        fail("the decoder's last convolution has a bias, which VITS's does not")

    inference = voice.get("inference", {})
    config = {
        "model_type": "vits",
        "vocab_size": int(vocab_size),
        "hidden_size": int(hidden),
        "num_hidden_layers": layers,
        "num_attention_heads": int(heads),
        "window_size": int(window),
        "use_bias": True,
        "ffn_dim": int(ffn.shape[0]),
        "ffn_kernel_size": int(ffn.shape[2]),
        "flow_size": int(flow_size),
        "hidden_act": "relu",
        "layer_norm_eps": 1e-5,
        "use_stochastic_duration_prediction": True,
        "num_speakers": int(voice.get("num_speakers", 1)),
        "speaker_embedding_size": 0,
        "upsample_initial_channel": int(need(weights, "dec.conv_pre.weight").shape[0]),
        "upsample_rates": [int(r) for r in rates],
        "upsample_kernel_sizes": [int(k) for k in up_kernels],
        "resblock_kernel_sizes": [int(k) for k in kernel_sizes],
        "resblock_dilation_sizes": [[int(d) for d in ds] for ds in dilation_sizes],
        "resblock_type": resblock_type,
        "leaky_relu_slope": 0.1,
        "depth_separable_channels": 2,
        "depth_separable_num_layers": dds_layers,
        "duration_predictor_flow_bins": int(bins),
        "duration_predictor_tail_bound": 5.0,
        "duration_predictor_kernel_size": int(need(weights, "dp.convs.convs_sep.0.weight").shape[2]),
        "duration_predictor_num_flows": num_flows,
        "prior_encoder_num_flows": len(couplings),
        "prior_encoder_num_wavenet_layers": wavenet_layers,
        "wavenet_kernel_size": int(wavenet_kernel),
        "wavenet_dilation_rate": int(dilation_rate),
        "speaking_rate": 1.0 / float(inference.get("length_scale", 1.0)),
        "noise_scale": float(inference.get("noise_scale", 0.667)),
        "noise_scale_duration": float(inference.get("noise_w", 0.8)),
        "sampling_rate": int(voice["audio"]["sample_rate"]),
    }
    if config["num_speakers"] != 1:
        fail(f"the voice has {config['num_speakers']} speakers; lingcast converts single-speaker voices only")
    return out, config


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("onnx_path")
    parser.add_argument("out_dir")
    parser.add_argument("--source", default="", help="where the voice came from (written to SOURCE)")
    args = parser.parse_args()
    json_path = args.onnx_path + ".json"
    if not os.path.isfile(args.onnx_path):
        fail(f"{args.onnx_path}: no such file")
    if not os.path.isfile(json_path):
        fail(f"{json_path}: no such file (a Piper voice comes with VOICE.onnx.json)")
    with open(json_path, encoding="utf-8") as f:
        voice = json.load(f)
    if voice.get("phoneme_type", "espeak") != "espeak" or "phoneme_id_map" not in voice:
        fail(f"{json_path}: lingcast speaks Piper voices with espeak-ng phonemes and a phoneme_id_map only")
    try:
        model = onnx.load(args.onnx_path)
    except Exception as e:  # onnx raises several protobuf error types
        fail(f"{args.onnx_path}: not an ONNX model ({e})")
    tensors, config = convert(original_names(model), node_attributes(model), voice)

    with replaced_directory(args.out_dir, ".piper-") as staging:
        write_safetensors(os.path.join(staging, "model.safetensors"), tensors)
        with open(os.path.join(staging, "config.json"), "w", encoding="utf-8") as f:
            json.dump(config, f, indent=2)
        shutil.copyfile(json_path, os.path.join(staging, "piper.json"))
        with open(os.path.join(staging, "SOURCE"), "w", encoding="utf-8") as f:
            f.write((args.source or os.path.abspath(args.onnx_path)) + "\n")
            f.write("converted by tools/neural/piper_to_checkpoint.py\n")
    print(f"piper_to_checkpoint: {len(tensors)} tensors, {sum(t.nbytes for t in tensors.values()) >> 20} MB -> {args.out_dir}")


if __name__ == "__main__":
    main()
