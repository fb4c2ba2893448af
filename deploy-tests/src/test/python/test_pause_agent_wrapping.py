"""The shop's Kubernetes manifest runs every service under the pause agent, wrapped so that it can work: the agent's
binary handed over by an init container, the image's own entrypoint after `--`, options the real agent accepts, its
control port on the pod's loopback, and no CPU limit (the agent refuses to start under a quota). Schemas cannot see
any of that; a wrapper broken on purpose, one way each, shows these checks can fail."""

import copy
import json
import subprocess
import unittest

import yaml

from project import ROOT, built

SHOP = ROOT / "sockshop-demo" / "deploy" / "k8s" / "shop.yaml"
DOCKERFILE = ROOT / "sockshop-demo" / "deploy" / "Dockerfile"
AGENT = ROOT / "pause-agent" / "target" / "release" / "pause-agent"
LOOPBACK = ("127.", "[::1]:")


def deployments():
    with open(SHOP) as text:
        return {d["metadata"]["name"]: d for d in yaml.safe_load_all(text) if d and d["kind"] == "Deployment"}


def image_entrypoint():
    """The demo image's ENTRYPOINT, in its JSON form, as the Dockerfile writes it."""
    for line in DOCKERFILE.read_text().splitlines():
        if line.startswith("ENTRYPOINT "):
            return json.loads(line[len("ENTRYPOINT "):])
    raise AssertionError(f"{DOCKERFILE} has no ENTRYPOINT")


def agent_accepts(options):
    """Runs the real agent with the manifest's options, a numeric control port made a free one (0) so that the
    check never takes a port, and `true` as the service: it exits 0 only if it accepted them. Returns its complaint,
    or None."""
    def local(previous, option):
        address, _, port = option.rpartition(":")
        return f"{address}:0" if previous == "--control" and port.isdigit() else option
    options = [local(previous, option) for previous, option in zip([None] + options, options)]
    run = subprocess.run([str(AGENT), *options, "--", "true"], capture_output=True, text=True, timeout=30)
    return None if run.returncode == 0 else f"exit {run.returncode}: {run.stderr.strip()}"


def wrapper_errors(deployment, entrypoint):
    """What is wrong with how `deployment`'s service container is wrapped by the pause agent; empty when nothing."""
    name = deployment["metadata"]["name"]
    pod = deployment["spec"]["template"]["spec"]
    service = next((c for c in pod["containers"] if c["name"] == name), None)
    if service is None:
        return [f"{name}: no container named {name}"]
    command = service.get("command") or []
    if "--" not in command:
        return [f"{name}: the command {command} is not `pause-agent [OPTIONS] -- <entrypoint>`"]
    split = command.index("--")
    binary, options, wrapped = command[0], command[1:split], command[split + 1:]
    errors = []
    if wrapped != entrypoint:
        errors.append(f"{name}: the command after `--` is {wrapped}, not the image's ENTRYPOINT {entrypoint}: the "
                      "service would not start as without the agent")
    # The binary comes from an emptyDir that an init container fills at that very path.
    mount = next((m for m in service.get("volumeMounts", []) if binary.startswith(m["mountPath"].rstrip("/") + "/")),
                 None)
    if mount is None:
        errors.append(f"{name}: {binary} is on no volume mounted in the container")
    else:
        volume = next((v for v in pod.get("volumes", []) if v["name"] == mount["name"]), {})
        if "emptyDir" not in volume:
            errors.append(f"{name}: volume {mount['name']} holding the agent is not an emptyDir")
        relative = binary[len(mount["mountPath"].rstrip("/")):]
        fills = [i for i in pod.get("initContainers", [])
                 for m in i.get("volumeMounts", []) if m["name"] == mount["name"]
                 and (i.get("command") or [])[-1:] == [m["mountPath"].rstrip("/") + relative]]
        if not fills:
            errors.append(f"{name}: no init container copies the agent to {binary} (volume {mount['name']})")
    limits = (service.get("resources") or {}).get("limits") or {}
    if "cpu" in limits:
        errors.append(f"{name}: limits.cpu {limits['cpu']!r} sets a CPU quota, under which the pause agent refuses "
                      "to start (a quota would cancel its pauses): pin the service instead")
    control = options[options.index("--control") + 1] if "--control" in options[:-1] else None
    if control is None or not control.startswith(LOOPBACK):
        errors.append(f"{name}: --control {control} is not on loopback: anything reaching it can stop the service")
    complaint = agent_accepts(options)
    if complaint:
        errors.append(f"{name}: the pause agent refuses the options {options}: {complaint}")
    return errors


class PauseAgentWrappingTests(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        built(AGENT, "the pause agent (./mvnw -B -ntp -pl pause-agent compile builds it)")
        cls.deployments = deployments()
        cls.entrypoint = image_entrypoint()

    def test_every_service_of_the_shop_runs_under_the_agent(self):
        self.assertEqual({"front-end", "orders", "carts", "catalogue", "user", "payment", "shipping"},
                         set(self.deployments))
        errors = [e for d in self.deployments.values() for e in wrapper_errors(d, self.entrypoint)]
        self.assertEqual([], errors)
        print(f"\n{len(self.deployments)} services wrapped by the pause agent around {self.entrypoint}")

    def test_a_wrapper_broken_on_purpose_fails_naming_what_is_wrong(self):
        def service(d):
            return d["spec"]["template"]["spec"]["containers"][0]

        def command(d):
            return service(d)["command"]

        cases = [
            ("a CPU limit", lambda d: service(d)["resources"]["limits"].update(cpu="500m"), "limits.cpu '500m'"),
            ("an entrypoint that drifted from the image's",
             lambda d: command(d).__setitem__(-1, "/app/other.jar"), "not the image's ENTRYPOINT"),
            ("no `--` before the entrypoint", lambda d: command(d).remove("--"), "is not `pause-agent [OPTIONS] --"),
            ("the control port on every interface",
             lambda d: command(d).__setitem__(command(d).index("--control") + 1, "0.0.0.0:7070"),
             "--control 0.0.0.0:7070 is not on loopback"),
            ("an option the agent does not know",
             lambda d: command(d).insert(1, "--max-pause-msec"), "the pause agent refuses the options"),
            ("a control address the agent cannot parse",
             lambda d: command(d).__setitem__(command(d).index("--control") + 1, "127.0.0.1:http"),
             "is not an address and port"),
            ("the agent's volume not mounted", lambda d: service(d).pop("volumeMounts"), "is on no volume mounted"),
            ("the init container copying elsewhere",
             lambda d: d["spec"]["template"]["spec"]["initContainers"][0]["command"].__setitem__(-1, "/pathfence/pa"),
             "no init container copies the agent to /pathfence/pause-agent"),
        ]
        for what, breaks, expected in cases:
            with self.subTest(what):
                for name in ("payment", "front-end"):
                    original = self.deployments[name]
                    self.assertEqual([], wrapper_errors(original, self.entrypoint), "the unbroken control is valid")
                    broken = copy.deepcopy(original)
                    breaks(broken)
                    errors = wrapper_errors(broken, self.entrypoint)
                    self.assertTrue(any(expected in e for e in errors), f"{name}: expected {expected!r} in {errors}")


if __name__ == "__main__":
    unittest.main()
