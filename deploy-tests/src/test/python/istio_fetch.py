"""Fetches a Wasm module from a registry as Istio's agent does for a WasmPlugin with an oci:// url.

Written from the behaviour of Istio's image fetcher (pkg/wasm/imagefetcher.go and cache.go in istio/istio), through
the registry's HTTP API only (/v2/.../manifests and /v2/.../blobs):
- the manifest is asked for with the media types go-containerregistry accepts; its digest is what a WasmPlugin's
  `sha256` is compared with;
- a Docker manifest: the last layer must be `application/vnd.docker.image.rootfs.diff.tar.gzip`, a gzipped tar
  holding `plugin.wasm` (any folder);
- any other manifest: first as the "compat" variant, the last layer `application/vnd.oci.image.layer.v1.tar+gzip`
  holding `plugin.wasm`; failing that as the "oci" variant, exactly two layers, one of them the raw module as
  `application/vnd.module.wasm.content.layer.v1+wasm`;
- what comes out must start with the Wasm magic number.
Every blob is checked against its digest and size, as go-containerregistry does while reading it. Beyond what Istio
checks, the config's last diff_id must be the digest of the uncompressed last layer, as a container engine requires.
"""

import gzip
import hashlib
import io
import json
import posixpath
import tarfile
import urllib.error
import urllib.request
from dataclasses import dataclass

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
DOCKER_MANIFEST_LIST = "application/vnd.docker.distribution.manifest.list.v2+json"
OCI_LAYER = "application/vnd.oci.image.layer.v1.tar+gzip"
DOCKER_LAYER = "application/vnd.docker.image.rootfs.diff.tar.gzip"
WASM_LAYER = "application/vnd.module.wasm.content.layer.v1+wasm"
ACCEPTED_MANIFESTS = ", ".join([OCI_MANIFEST, OCI_INDEX, DOCKER_MANIFEST, DOCKER_MANIFEST_LIST])
WASM_MAGIC = b"\0asm"
PLUGIN_FILE_NAME = "plugin.wasm"


class FetchError(Exception):
    """The module could not be fetched; the message says which check failed."""


@dataclass
class FetchedModule:
    manifest_digest: str
    manifest_media_type: str
    variant: str
    layer_media_type: str
    module: bytes


def sha256_digest(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


class RegistryClient:
    """Plain HTTP to a registry on loopback, anonymous, without the environment's proxies."""

    def __init__(self, address, repository):
        self.base = f"http://{address}/v2/{repository}"
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def _get(self, path, accept=None):
        request = urllib.request.Request(self.base + path, headers={"Accept": accept} if accept else {})
        try:
            with self._opener.open(request, timeout=30) as answer:
                return answer.read(), answer.headers
        except urllib.error.HTTPError as e:
            raise FetchError(f"GET {self.base}{path}: {e.code} {e.read()[:300]!r}") from e

    def manifest(self, reference):
        body, headers = self._get(f"/manifests/{reference}", ACCEPTED_MANIFESTS)
        return body, headers.get("Content-Type", ""), headers.get("Docker-Content-Digest")

    def blob(self, descriptor):
        digest, size = descriptor["digest"], descriptor["size"]
        body, _ = self._get(f"/blobs/{digest}")
        if sha256_digest(body) != digest or len(body) != size:
            raise FetchError(f"blob {digest}: got {len(body)} bytes with digest {sha256_digest(body)}, "
                             f"the manifest says {size} bytes")
        return body


def fetch_module(address, repository, reference, expected_sha256=None):
    """The module behind `repository:reference` (a tag, or a digest), checked against `expected_sha256` (the
    WasmPlugin's `sha256`, hex) when given."""
    client = RegistryClient(address, repository)
    body, media_type, header_digest = client.manifest(reference)
    digest = sha256_digest(body)
    if header_digest is not None and header_digest != digest:
        raise FetchError(f"the registry says the manifest is {header_digest}, its bytes are {digest}")
    if reference.startswith("sha256:") and reference != digest:
        raise FetchError(f"asked for manifest {reference}, got {digest}")
    if expected_sha256 is not None and digest != "sha256:" + expected_sha256:
        raise FetchError(f"module downloaded from {repository}:{reference} has checksum {digest[7:]}, "
                         f"which does not match: {expected_sha256}")
    manifest = json.loads(body)
    media_type = manifest.get("mediaType") or media_type
    if media_type in (OCI_INDEX, DOCKER_MANIFEST_LIST):
        raise FetchError(f"{repository}:{reference} is an index ({media_type}); the filter's image is one manifest")
    layers = manifest.get("layers") or []
    if not layers:
        raise FetchError("number of layers must be greater than zero")

    if media_type == DOCKER_MANIFEST:
        variant, layer_type, module = "docker", DOCKER_LAYER, _module_in_last_layer(client, manifest, DOCKER_LAYER)
    else:
        try:
            variant, layer_type = "compat", OCI_LAYER
            module = _module_in_last_layer(client, manifest, OCI_LAYER)
        except FetchError as compat_error:
            try:
                variant, layer_type, module = "oci", WASM_LAYER, _module_in_wasm_layer(client, layers)
            except FetchError as oci_error:
                raise FetchError(f"the image is in no format Istio reads: as the compat variant: {compat_error}; "
                                 f"as the oci variant: {oci_error}") from None
    if len(module) < 8 or not module.startswith(WASM_MAGIC):
        raise FetchError(f"fetched Wasm binary from {repository}:{reference} is invalid")
    return FetchedModule(digest, media_type, variant, layer_type, module)


def _module_in_last_layer(client, manifest, expected_type):
    layer = manifest["layers"][-1]
    if layer.get("mediaType") != expected_type:
        raise FetchError(f"invalid media type {layer.get('mediaType')} (expect {expected_type})")
    compressed = client.blob(layer)
    try:
        tar_bytes = gzip.decompress(compressed)
    except OSError as e:
        raise FetchError(f"failed to parse layer as tar.gz: {e}") from e
    config = json.loads(client.blob(manifest["config"]))
    diff_ids = config.get("rootfs", {}).get("diff_ids", [])
    if not diff_ids or diff_ids[-1] != sha256_digest(tar_bytes):
        raise FetchError(f"the config's last diff_id {diff_ids[-1:]} is not the layer's {sha256_digest(tar_bytes)}")
    with tarfile.open(fileobj=io.BytesIO(tar_bytes), mode="r:") as tar:
        for entry in tar:
            if posixpath.basename(entry.name) == PLUGIN_FILE_NAME and entry.isfile():
                return tar.extractfile(entry).read()
    raise FetchError(f"{PLUGIN_FILE_NAME} not found in the archive")


def _module_in_wasm_layer(client, layers):
    if len(layers) != 2:
        raise FetchError(f"number of layers must be 2 but got {len(layers)}")
    for layer in layers:
        if layer.get("mediaType") == WASM_LAYER:
            return client.blob(layer)
    raise FetchError(f"could not find the layer of type {WASM_LAYER}")
