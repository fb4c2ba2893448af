"""Every Kubernetes and Istio manifest of the repository is valid against its schema, offline; a broken one is not."""

import copy
import unittest
from collections import Counter

import yaml

from manifest_schemas import ManifestValidator, download_istio_crds
from project import ENVOY_FILTER, ROOT, built, require_commands

# The manifests shipped today; new ones under any module's deploy/ folder are found and checked too.
KNOWN_MANIFESTS = {
    "envoy-filter/deploy/wasmplugin.yaml",
    "envoy-filter/deploy/envoyfilter.yaml",
    "sockshop-demo/deploy/k8s/shop.yaml",
    "sockshop-demo/deploy/k8s/load.yaml",
    "sockshop-demo/deploy/istio/wasmplugin-orders.yaml",
}


def repository_manifests():
    return sorted(path for path in ROOT.glob("*/deploy/**/*.yaml") if "target" not in path.relative_to(ROOT).parts)


def documents(path):
    with open(path) as text:
        return [document for document in yaml.safe_load_all(text) if document]


def name_of(document):
    return f"{document.get('kind')}/{(document.get('metadata') or {}).get('name')}"


def rename_key(mapping, old, new):
    mapping[new] = mapping.pop(old)


class ManifestSchemaTests(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        require_commands("go", remedy="scripts/tools.sh installs Go from Debian when it is missing")
        cls.validator = ManifestValidator(download_istio_crds())

    def errors_in(self, path):
        found = []
        for document in documents(path):
            found += [f"{path.relative_to(ROOT)} {name_of(document)}: {e}" for e in self.validator.errors(document)]
        return found

    def test_every_manifest_in_the_repository_is_valid(self):
        manifests = repository_manifests()
        self.assertLessEqual(KNOWN_MANIFESTS, {str(path.relative_to(ROOT)) for path in manifests})
        kinds = Counter(document["kind"] for path in manifests for document in documents(path))
        # What was checked, so that a manifest that stopped being read shows.
        print(f"\nchecked {sum(kinds.values())} documents in {len(manifests)} files against Kubernetes "
              f"{' and '.join(self.validator.kubernetes_versions)} and Istio's CRDs: {dict(sorted(kinds.items()))}")
        self.assertLessEqual({"Namespace", "Deployment", "Service", "ConfigMap", "Job", "WasmPlugin", "EnvoyFilter"},
                             set(kinds))
        self.assertEqual([], [error for path in manifests for error in self.errors_in(path)])

    def test_the_wasmplugins_the_build_pins_are_valid(self):
        pinned = sorted(built(ENVOY_FILTER / "target" / "deploy", "the pinned WasmPlugins").glob("*.yaml"))
        self.assertEqual(["wasmplugin-orders.yaml", "wasmplugin.yaml"], [path.name for path in pinned])
        self.assertEqual([], [error for path in pinned for error in self.errors_in(path)])

    def assert_broken(self, file, kind, breaks, expected):
        """The document of `kind` in `file` is valid as written, and invalid, naming `expected`, once `breaks`
        has changed it."""
        original = next(d for d in documents(ROOT / file) if d["kind"] == kind)
        self.assertEqual([], self.validator.errors(original), "the unbroken control must be valid")
        broken = copy.deepcopy(original)
        breaks(broken)
        errors = self.validator.errors(broken)
        self.assertTrue(any(expected in error for error in errors), f"expected an error naming {expected!r}: {errors}")

    def test_a_broken_manifest_fails_naming_what_is_wrong(self):
        cases = [
            ("a misspelt Deployment field", "sockshop-demo/deploy/k8s/shop.yaml", "Deployment",
             lambda d: rename_key(d["spec"], "replicas", "replica"), "'replica' was unexpected"),
            ("a port that is not a number", "sockshop-demo/deploy/k8s/shop.yaml", "Service",
             lambda d: d["spec"]["ports"][0].update(port="http"), "spec.ports.0.port: 'http' is not of type"),
            ("a Job without its pod template", "sockshop-demo/deploy/k8s/load.yaml", "Job",
             lambda d: d["spec"].pop("template"), "'template' is a required property"),
            ("a WasmPlugin failure strategy Istio lacks", "envoy-filter/deploy/wasmplugin.yaml", "WasmPlugin",
             lambda d: d["spec"].update(failStrategy="FAIL_SOMETIMES"), "spec.failStrategy: 'FAIL_SOMETIMES' is not one of"),
            ("a WasmPlugin sha256 that is no digest", "envoy-filter/deploy/wasmplugin.yaml", "WasmPlugin",
             lambda d: d["spec"].update(sha256="sha256:1234"), "spec.sha256: 'sha256:1234' does not match"),
            ("a misspelt WasmPlugin field", "sockshop-demo/deploy/istio/wasmplugin-orders.yaml", "WasmPlugin",
             lambda d: rename_key(d["spec"], "pluginConfig", "pluginConfg"), "'pluginConfg' was unexpected"),
            ("a WasmPlugin version Istio does not serve", "envoy-filter/deploy/wasmplugin.yaml", "WasmPlugin",
             lambda d: d.update(apiVersion="extensions.istio.io/v1alpha9"), "has no WasmPlugin in extensions.istio.io/v1alpha9"),
            ("an EnvoyFilter patch of a kind Istio lacks", "envoy-filter/deploy/envoyfilter.yaml", "EnvoyFilter",
             lambda d: d["spec"]["configPatches"][0].update(applyTo="HTTP_FILTR"),
             "spec.configPatches.0.applyTo: 'HTTP_FILTR' is not one of"),
            ("a misspelt metadata field of an EnvoyFilter", "envoy-filter/deploy/envoyfilter.yaml", "EnvoyFilter",
             lambda d: rename_key(d["metadata"], "namespace", "namespce"), "'namespce' was unexpected"),
        ]
        for what, file, kind, breaks, expected in cases:
            with self.subTest(what):
                self.assert_broken(file, kind, breaks, expected)

    def test_a_kind_no_schema_knows_is_refused(self):
        errors = self.validator.errors({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}})
        self.assertTrue(errors and all("Couldn't find schema for kind Widget" in e for e in errors), errors)


if __name__ == "__main__":
    unittest.main()

