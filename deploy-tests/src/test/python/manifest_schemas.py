"""Validates Kubernetes and Istio manifests offline, against the schemas an API server would apply.

Core kinds go to kubernetes-validate, which bundles Kubernetes' own OpenAPI schemas as JSON schemas; in strict mode an
unknown field is an error, as `kubectl apply` (server-side field validation) makes it. Istio kinds go to the
`openAPIV3Schema` of Istio's CustomResourceDefinitions, as shipped in the Go module istio.io/api: downloaded with
`go mod download` into the project's tool cache (.tools/go), never committed. Those schemas are Kubernetes'
structural schemas; they become JSON schemas by the rules an API server follows for them:
- an object with `properties` takes no other field, unless it says `x-kubernetes-preserve-unknown-fields`;
- `nullable` admits null; `x-kubernetes-int-or-string` admits both (its `anyOf` says so already);
- `apiVersion` and `kind` must name the served version, and `metadata` is Kubernetes' ObjectMeta.
What no JSON schema can check, the CRDs' CEL rules (`x-kubernetes-validations`), is left to the API server.
"""

import json
import os
import subprocess
import tempfile

import jsonschema
import kubernetes_validate
import yaml
from kubernetes_validate.utils import all_versions, schema_contents
from referencing import Registry, Resource

from project import TOOLS

ISTIO_API_MODULE = "istio.io/api"
ISTIO_API_VERSION = "v1.31.4"
ISTIO_CRD_FILE = "kubernetes/customresourcedefinitions.gen.yaml"
OBJECT_META = "/api/_definitions.json#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


def download_istio_crds(go="go"):
    """The path of Istio's CRD file in the module cache, downloading the module on first use."""
    env = dict(os.environ, GOPATH=str(TOOLS / "go"), GOMODCACHE=str(TOOLS / "go" / "mod"),
               # Writable cache files, so that removing .tools/ works; no toolchain download.
               GOFLAGS="-modcacherw", GOTOOLCHAIN="local", GO111MODULE="on")
    with tempfile.TemporaryDirectory() as outside_any_module:
        done = subprocess.run([go, "mod", "download", "-json", f"{ISTIO_API_MODULE}@{ISTIO_API_VERSION}"],
                              cwd=outside_any_module, env=env, capture_output=True, text=True, timeout=600)
    try:
        info = json.loads(done.stdout)
    except json.JSONDecodeError:
        info = {"Error": (done.stdout + done.stderr).strip()}
    if done.returncode != 0 or "Error" in info:
        raise RuntimeError(f"go mod download {ISTIO_API_MODULE}@{ISTIO_API_VERSION}: {info.get('Error')}")
    return os.path.join(info["Dir"], ISTIO_CRD_FILE)


def structural_to_json_schema(node):
    """A JSON schema (2020-12) that accepts what Kubernetes accepts for this structural schema node."""
    if isinstance(node, list):
        return [structural_to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    schema = {}
    for key, value in node.items():
        if key in ("properties", "patternProperties"):
            schema[key] = {name: structural_to_json_schema(child) for name, child in value.items()}
        elif key in ("items", "additionalProperties", "not", "allOf", "anyOf", "oneOf"):
            schema[key] = structural_to_json_schema(value)
        elif key in ("description", "nullable", "format") or key.startswith("x-kubernetes-"):
            continue
        else:
            schema[key] = value
    if node.get("x-kubernetes-int-or-string"):
        schema.pop("type", None)
    elif node.get("nullable") and "type" in schema:
        schema["type"] = [schema["type"], "null"]
    if "properties" in schema and "additionalProperties" not in schema \
            and not node.get("x-kubernetes-preserve-unknown-fields"):
        schema["additionalProperties"] = False
    return schema


def describe(error):
    where = ".".join(str(part) for part in error.absolute_path) or "(the document)"
    return f"{where}: {error.message}"


class ManifestValidator:
    """Validates one parsed manifest document at a time; errors() lists what is wrong with it, empty when valid."""

    def __init__(self, istio_crd_file, kubernetes_versions=None):
        versions = all_versions()
        # The oldest and the newest Kubernetes the package bundles: a field that is gone, or not there yet, fails.
        self.kubernetes_versions = kubernetes_versions or [versions[0], versions[-1]]
        definitions = schema_contents(f"kubernetes-json-schema/v{versions[-1]}-local-strict/_definitions.json",
                                      versions[-1])
        self._registry = Resource.from_contents(definitions) @ Registry()
        self.custom_kinds = {}
        self._custom_validators = {}
        with open(istio_crd_file) as crds:
            for crd in yaml.safe_load_all(crds):
                if not crd or crd.get("kind") != "CustomResourceDefinition":
                    continue
                spec = crd["spec"]
                for version in spec["versions"]:
                    api_version = f"{spec['group']}/{version['name']}"
                    self.custom_kinds[(api_version, spec["names"]["kind"])] = version

    def _custom_validator(self, api_version, kind):
        version = self.custom_kinds[(api_version, kind)]
        schema = structural_to_json_schema(version["schema"]["openAPIV3Schema"])
        schema.setdefault("properties", {}).update({
            "apiVersion": {"const": api_version},
            "kind": {"const": kind},
            "metadata": {"$ref": OBJECT_META, "required": ["name"]},
        })
        schema["required"] = sorted(set(schema.get("required", [])) | {"apiVersion", "kind", "metadata", "spec"})
        schema["additionalProperties"] = False
        schema["$id"] = f"https://kubernetes.io/api/{kind.lower()}/{api_version}"
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        return jsonschema.Draft202012Validator(schema, registry=self._registry)

    def errors(self, document):
        api_version, kind = document.get("apiVersion"), document.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str):
            return ["(the document): apiVersion and kind must both be given"]
        group = api_version.split("/")[0] if "/" in api_version else ""
        if group.endswith(".istio.io"):
            return self._custom_errors(document, api_version, kind)
        found = []
        for version in self.kubernetes_versions:
            try:
                kubernetes_validate.validate(document, version, strict=True)
            except kubernetes_validate.ValidationError as e:
                found.append(f"Kubernetes {version}: {describe(e)}")
            except kubernetes_validate.SchemaNotFoundError as e:
                found.append(f"Kubernetes {version}: {e.message}")
        return found

    def _custom_errors(self, document, api_version, kind):
        known = self.custom_kinds.get((api_version, kind))
        if known is None:
            served = sorted(v for (v, k) in self.custom_kinds if k == kind)
            return [f"apiVersion: Istio {ISTIO_API_VERSION} has no {kind} in {api_version} (it has: {served or 'none'})"]
        if not known.get("served", False):
            return [f"apiVersion: {kind} {api_version} is not served by Istio {ISTIO_API_VERSION}"]
        validator = self._custom_validators.get((api_version, kind))
        if validator is None:
            validator = self._custom_validators[(api_version, kind)] = self._custom_validator(api_version, kind)
        errors = sorted(validator.iter_errors(document), key=lambda e: [str(part) for part in e.absolute_path])
        return [f"Istio {ISTIO_API_VERSION}: {describe(e)}" for e in errors]
