"""The filter's image goes through a real registry and comes back as Istio's agent fetches it, byte for byte."""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import yaml

from istio_fetch import DOCKER_LAYER, DOCKER_MANIFEST, OCI_LAYER, OCI_MANIFEST, FetchError, fetch_module
from loopback_registry import LoopbackRegistry
from project import ENVOY_FILTER, built, require, require_commands

sys.path.insert(0, str(ENVOY_FILTER / "image"))
import build_image  # noqa: E402  (the build's own image writer, for the controls)

REPOSITORY = "pathfence-envoy-filter"


def run(command):
    """Runs a tool quietly; when it fails, the failure carries what it said."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited with {done.returncode}:\n{done.stdout}{done.stderr}")


def first_difference(expected, actual):
    """A short account of how two modules differ, instead of a diff of a megabyte of bytes."""
    if expected == actual:
        return "equal"
    offset = next((i for i, (a, b) in enumerate(zip(expected, actual)) if a != b), min(len(expected), len(actual)))
    return f"{len(actual)} bytes against {len(expected)} built; first difference at byte {offset}"


class FilterImageThroughARegistryTests(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        require_commands("docker-registry", "skopeo")
        cls.module = built(ENVOY_FILTER / "target" / "pathfence_envoy_filter.wasm", "the filter's module").read_bytes()
        cls.layout = built(ENVOY_FILTER / "target" / "image" / "index.json", "the filter's image").parent
        index = json.loads((cls.layout / "index.json").read_text())
        cls.tag = index["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"]
        cls.layout_digest = index["manifests"][0]["digest"]
        pinned = yaml.safe_load(built(ENVOY_FILTER / "target" / "deploy" / "wasmplugin.yaml",
                                      "the pinned WasmPlugin").read_text())
        cls.pinned_sha256 = pinned["spec"]["sha256"]
        cls.pinned_url = pinned["spec"]["url"]
        cls.registry = LoopbackRegistry().start()
        cls.addClassCleanup(cls.registry.close)

    def push_layout(self, layout, tag):
        """The README's publishing command, with plain HTTP for the loopback registry; returns the pushed digest."""
        with tempfile.TemporaryDirectory() as folder:
            digest_file = Path(folder) / "digest"
            run(["skopeo", "copy", "--quiet", "--dest-tls-verify=false", "--preserve-digests", "--digestfile",
                 str(digest_file), f"oci:{layout}:{tag}", f"docker://{self.registry.address}/{REPOSITORY}:{tag}"])
            return digest_file.read_text().strip()

    def test_the_built_image_comes_back_from_the_registry_as_istio_fetches_it(self):
        pushed = self.push_layout(self.layout, self.tag)
        fetched = fetch_module(self.registry.address, REPOSITORY, self.tag, expected_sha256=self.pinned_sha256)

        self.assertEqual(fetched.manifest_media_type, OCI_MANIFEST)
        self.assertEqual(fetched.variant, "compat")
        self.assertEqual(fetched.layer_media_type, OCI_LAYER)
        self.assertTrue(fetched.module == self.module, first_difference(self.module, fetched.module))
        # One digest everywhere: the build's layout, what skopeo pushed, what the registry serves, the pinned sha256.
        self.assertEqual(pushed, self.layout_digest)
        self.assertEqual(fetched.manifest_digest, self.layout_digest)
        self.assertEqual("sha256:" + self.pinned_sha256, self.layout_digest)
        self.assertEqual((ENVOY_FILTER / "target" / "image.digest").read_text().strip(), self.layout_digest)
        self.assertEqual(self.pinned_url, f"oci://REGISTRY/{REPOSITORY}:{self.tag}")

        by_digest = fetch_module(self.registry.address, REPOSITORY, self.layout_digest)
        self.assertTrue(by_digest.module == self.module, first_difference(self.module, by_digest.module))

    def source(self):
        manifest = self.layout / "blobs" / "sha256" / self.layout_digest.split(":", 1)[1]
        return json.loads(manifest.read_text())["annotations"]["org.opencontainers.image.source"]

    def test_the_same_module_always_makes_the_same_image(self):
        # What lets the build print the digest to pin before anything is pushed, and anyone check it from sources.
        with tempfile.TemporaryDirectory() as folder:
            digest = build_image.write_layout(Path(folder) / "image", self.module, self.tag, self.source())
        self.assertEqual(digest, self.layout_digest)

    def test_the_fetch_refuses_an_image_without_plugin_wasm_and_a_digest_other_than_the_pinned_one(self):
        # The control for the test above: the same module, filed under another name, is not what Istio finds.
        with tempfile.TemporaryDirectory() as folder:
            layout = Path(folder) / "image"
            build_image.write_layout(layout, self.module, "control", self.source(), file_name="filter.wasm")
            self.push_layout(layout, "control")
        with self.assertRaisesRegex(FetchError, "plugin.wasm not found in the archive"):
            fetch_module(self.registry.address, REPOSITORY, "control")
        with self.assertRaisesRegex(FetchError, "which does not match: " + self.pinned_sha256):
            fetch_module(self.registry.address, REPOSITORY, "control", expected_sha256=self.pinned_sha256)

    def test_the_dockerfile_makes_an_image_istio_fetches(self):
        require_commands("docker", remedy="sudo scripts/docker.sh installs and starts Docker")
        require(subprocess.run(["docker", "info"], capture_output=True).returncode == 0, "no Docker engine answers",
                "sudo scripts/docker.sh starts one")
        context = built(ENVOY_FILTER / "target" / "image-context" / "plugin.wasm", "the Dockerfile's context").parent
        image = f"{self.registry.address}/{REPOSITORY}:docker"
        try:
            run(["docker", "build", "--quiet", "-f", str(ENVOY_FILTER / "image" / "Dockerfile"), "-t", image,
                 str(context)])
            # Docker pushes to a registry on 127.0.0.0/8 over plain HTTP without being told to.
            run(["docker", "push", "--quiet", image])
        finally:
            subprocess.run(["docker", "image", "rm", "--force", image], capture_output=True)
        fetched = fetch_module(self.registry.address, REPOSITORY, "docker")

        self.assertEqual(fetched.manifest_media_type, DOCKER_MANIFEST)
        self.assertEqual(fetched.variant, "docker")
        self.assertEqual(fetched.layer_media_type, DOCKER_LAYER)
        self.assertTrue(fetched.module == self.module, first_difference(self.module, fetched.module))


if __name__ == "__main__":
    unittest.main()

