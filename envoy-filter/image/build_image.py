#!/usr/bin/env python3
"""Packs the filter's module as an image Istio's WasmPlugin fetches, without a container engine.

Istio's fetcher takes an OCI or Docker image whose last layer is a gzipped tar holding `plugin.wasm` (the "compat"
variant of the Wasm image spec; it is what `docker build` of image/Dockerfile makes too). This writes that image as
an OCI image layout (oci-layout, index.json, blobs/sha256/...), which `skopeo copy` pushes to any registry as it is.

Everything in it is fixed by the module's bytes: the tar has no time stamps or owners, the gzip stream no time or
name, the config no creation date. The same module therefore always makes the same manifest, and so the same digest,
which is what a WasmPlugin pins in `sha256` (Istio compares it with the manifest's digest). The build writes the
WasmPlugin manifests it is given with that digest filled in.
"""

import argparse
import gzip
import hashlib
import io
import json
import re
import shutil
import sys
import tarfile
from pathlib import Path

OCI_INDEX = "application/vnd.oci.image.index.v1+json"
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_CONFIG = "application/vnd.oci.image.config.v1+json"
OCI_LAYER_TAR_GZIP = "application/vnd.oci.image.layer.v1.tar+gzip"
WASM_HEADER = b"\0asm\x01\0\0\0"  # magic number and binary format version 1
PLUGIN_FILE_NAME = "plugin.wasm"


class ImageError(Exception):
    """A module or manifest the image cannot be made from; the message says which and why."""


def sha256_digest(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def canonical_json(value):
    # Sorted keys and no spaces: the bytes, and so the digests, do not depend on how the dicts were built.
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def layer_tar(module, file_name=PLUGIN_FILE_NAME):
    """An uncompressed tar with one regular file, owned by root, mode 0644, time stamp 0."""
    entry = tarfile.TarInfo(file_name)
    entry.size = len(module)
    entry.mode = 0o644
    entry.mtime = 0
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        tar.addfile(entry, io.BytesIO(module))
    return buffer.getvalue()


def gzip_without_header_fields(data):
    # mtime 0 and an empty name: gzip.compress would stamp the current time into the header.
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as stream:
        stream.write(data)
    return buffer.getvalue()


def image_blobs(module, tag, source, file_name=PLUGIN_FILE_NAME):
    """The config, layer and manifest of the image, as {digest: bytes}, and the manifest's digest."""
    tar = layer_tar(module, file_name)
    layer = gzip_without_header_fields(tar)
    # A Wasm module runs on any node: the platform says so with Go's names for WebAssembly on WASI, which the OCI
    # image spec asks platforms to use. Istio does not look at it.
    config = canonical_json({
        "architecture": "wasm",
        "os": "wasip1",
        "config": {},
        "rootfs": {"type": "layers", "diff_ids": [sha256_digest(tar)]},
    })
    manifest = canonical_json({
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "config": {"mediaType": OCI_CONFIG, "digest": sha256_digest(config), "size": len(config)},
        "layers": [{"mediaType": OCI_LAYER_TAR_GZIP, "digest": sha256_digest(layer), "size": len(layer)}],
        "annotations": {
            "org.opencontainers.image.title": "PathFence Envoy filter",
            "org.opencontainers.image.description": "The PathFence proxy-wasm filter, as plugin.wasm for Istio's WasmPlugin.",
            "org.opencontainers.image.version": tag,
            "org.opencontainers.image.licenses": "Apache-2.0",
            "org.opencontainers.image.source": source,
        },
    })
    blobs = {sha256_digest(blob): blob for blob in (config, layer, manifest)}
    return blobs, sha256_digest(manifest), len(manifest)


def write_layout(directory, module, tag, source, file_name=PLUGIN_FILE_NAME):
    """Writes the OCI image layout to a fresh `directory`, the image tagged `tag`; returns the manifest's digest."""
    if not module.startswith(WASM_HEADER):
        raise ImageError("not a WebAssembly module (version 1): it does not start with \\0asm 01 00 00 00")
    blobs, manifest_digest, manifest_size = image_blobs(module, tag, source, file_name)
    if directory.exists():
        shutil.rmtree(directory)
    (directory / "blobs" / "sha256").mkdir(parents=True)
    for digest, blob in blobs.items():
        (directory / "blobs" / "sha256" / digest.split(":", 1)[1]).write_bytes(blob)
    (directory / "oci-layout").write_bytes(canonical_json({"imageLayoutVersion": "1.0.0"}))
    index = {
        "schemaVersion": 2,
        "mediaType": OCI_INDEX,
        "manifests": [{
            "mediaType": OCI_MANIFEST,
            "digest": manifest_digest,
            "size": manifest_size,
            "annotations": {"org.opencontainers.image.ref.name": tag},
        }],
    }
    (directory / "index.json").write_bytes(canonical_json(index))
    return manifest_digest


SHA256_LINE = re.compile(r"^(?P<indent>\s+)sha256:.*$", re.MULTILINE)
OCI_URL_LINE = re.compile(r"^(?P<indent>\s+)url:\s*(?P<quote>[\"']?)oci://(?P<repository>[^\s\"'@]+?)(?::[\w][\w.-]*)?(?P=quote)\s*$",
                          re.MULTILINE)


def pin(manifest_text, digest, tag, name):
    """The WasmPlugin text with `sha256` set to the image's digest and the `oci://` url's tag set to `tag`.

    Edits the two lines in place, so that comments and layout stay as written. A manifest without exactly one of
    each is refused, naming it: a pin that silently did nothing would leave the placeholder in place."""
    for pattern, field in ((SHA256_LINE, "sha256"), (OCI_URL_LINE, "an oci:// url")):
        found = len(pattern.findall(manifest_text))
        if found != 1:
            raise ImageError(f"{name}: expected one `{field}` line in the WasmPlugin, found {found}")
    text = SHA256_LINE.sub(lambda m: f"{m['indent']}sha256: \"{digest.split(':', 1)[1]}\"", manifest_text)
    return OCI_URL_LINE.sub(lambda m: f"{m['indent']}url: oci://{m['repository']}:{tag}", text)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", type=Path, required=True, help="the filter's .wasm")
    parser.add_argument("--layout", type=Path, required=True, help="folder to write the OCI image layout to")
    parser.add_argument("--docker-context", type=Path, help="folder to put plugin.wasm in for image/Dockerfile")
    parser.add_argument("--tag", required=True, help="the image's tag in the layout, and in the pinned urls")
    parser.add_argument("--source", required=True, help="the project's address, for the image's annotations")
    parser.add_argument("--pin", type=Path, action="append", default=[], help="a WasmPlugin manifest to pin")
    parser.add_argument("--pinned", type=Path, help="folder to write the pinned WasmPlugin manifests to")
    args = parser.parse_args(argv)
    try:
        module = args.module.read_bytes()
        digest = write_layout(args.layout, module, args.tag, args.source)
        (args.layout.parent / (args.layout.name + ".digest")).write_text(digest + "\n")
        if args.docker_context:
            args.docker_context.mkdir(parents=True, exist_ok=True)
            (args.docker_context / PLUGIN_FILE_NAME).write_bytes(module)
        if args.pin and not args.pinned:
            raise ImageError("--pin needs --pinned, the folder to write the pinned manifests to")
        for manifest in args.pin:
            args.pinned.mkdir(parents=True, exist_ok=True)
            pinned = pin(manifest.read_text(), digest, args.tag, str(manifest))
            (args.pinned / manifest.name).write_text(pinned)
    except (OSError, ImageError) as e:
        print(f"build_image.py: {e}", file=sys.stderr)
        return 1
    print(f"PathFence filter image {digest} ({len(module)} bytes of plugin.wasm) in {args.layout}, tag {args.tag}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
