"""Write small uncompressed Zarr v3 arrays with zarr-python and its cast_value codec.

Usage: python write_arrays.py OUT_DIR

For every case, OUT_DIR/<name>/ is a Zarr array (bytes codec, no compressor) and beside it
  <name>.original.bin  the values written, raw native-endian
  <name>.readback.bin  what zarr-python reads back, raw native-endian
manifest.json lists the cases. The Rust test tests/interop.rs checks both directions.
"""

import json
import sys
from pathlib import Path

import numpy as np
import zarr
import zarr.storage
from zarr.codecs import BytesCodec

from cast_value.zarr_compat.v1._entrypoint import CastValue

NAN, INF = float("nan"), float("inf")

CASES = [
    # The spec's NumPy-compatibility example.
    dict(name="numpy_compat", dtype="float64", fill=0.0,
         values=[1.5, 258.9, -1.0, NAN, INF, -INF, 255.99, -129.5, 0.0, 65536.0 + 7.0],
         config=dict(data_type="uint8", rounding="towards-zero", out_of_range="wrap",
                     scalar_map={"encode": [["NaN", 0], ["Infinity", 0], ["-Infinity", 0]]})),
    # float32 -> int16, nearest-even, clamp, NaN mapped both ways; the NaN fill value makes
    # the padding of the partial last chunk hold the encoded fill value.
    dict(name="f32_i16_nan_map", dtype="float32", fill="NaN",
         values=[0.5, 1.5, 2.5, -2.5, 40000.0, -40000.0, NAN, 123.456, -0.0, 32767.4],
         config=dict(data_type="int16", rounding="nearest-even", out_of_range="clamp",
                     scalar_map={"encode": [["NaN", -32768]], "decode": [[-32768, "NaN"]]})),
    dict(name="f64_f32", dtype="float64", fill=0.0,
         values=[0.1, 1e-40, 3.40282356e38, -1e-50, 1.0 + 2**-24, 1.0 + 2**-24 + 2**-50, NAN, INF, -0.0, 2.5],
         config=dict(data_type="float32")),
    dict(name="f32_f16", dtype="float32", fill=3.0,
         values=[65519.0, 1.0 + 2**-11, 1.0 + 3 * 2**-11, 6e-8, 3e-8, -0.0, NAN, -INF, 1000.1, 0.333],
         config=dict(data_type="float16")),
    dict(name="i32_u8_clamp", dtype="int32", fill=7,
         values=[-5, 0, 255, 256, 100000, -2147483648, 2147483647, 42, 1, 128],
         config=dict(data_type="uint8", out_of_range="clamp")),
] + [
    dict(name=f"f64_i8_{mode.replace('-', '_')}", dtype="float64", fill=0.0,
         values=[0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.6, -127.5, 3.99, -3.01],
         config=dict(data_type="int8", rounding=mode))
    for mode in ["nearest-even", "towards-zero", "towards-positive", "towards-negative", "nearest-away"]
] + [
    # The spec says the first of duplicate scalar_map keys wins.
    dict(name="duplicate_key", dtype="float64", fill=0.0,
         values=[NAN, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
         config=dict(data_type="uint8", scalar_map={"encode": [["NaN", 1], ["NaN", 2]]})),
]


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    manifest = []
    for case in CASES:
        name = case["name"]
        store = zarr.storage.LocalStore(out / name)
        codec = CastValue(**case["config"])
        arr = zarr.create_array(
            store=store, shape=(len(case["values"]),), chunks=(8,), dtype=case["dtype"],
            fill_value=case["fill"], filters=[codec], serializer=BytesCodec(), compressors=None,
            overwrite=True,
        )
        values = np.array(case["values"], dtype=case["dtype"])
        entry = dict(name=name, dtype=case["dtype"], n=len(values))
        (out / f"{name}.original.bin").write_bytes(values.tobytes())
        try:
            arr[:] = values
            back = arr[:]
            (out / f"{name}.readback.bin").write_bytes(np.ascontiguousarray(back).tobytes())
            entry["written"] = True
        except Exception as e:  # record what zarr-python refused, for the Rust side to judge
            entry["written"] = False
            entry["error"] = f"{type(e).__name__}: {e}"
        manifest.append(entry)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    print(f"zarr {zarr.__version__}: wrote {sum(e['written'] for e in manifest)} of {len(manifest)} arrays to {out}")


if __name__ == "__main__":
    main()
