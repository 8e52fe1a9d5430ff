"""deploy/k8s/ and deploy/Containerfile (docs/deploy.md): the manifests are valid Kubernetes
resources (kubernetes-validate's bundled schemas, offline) and agree with each other, with
the image and with the service's flags. These machines run no containers or cluster: what
can be checked without them is checked here (the wheel the image builds: test_wheel.py)."""

from __future__ import annotations

import re
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from council.server import sealing

DEPLOY = Path(__file__).parents[2] / "deploy"
MANIFESTS = sorted((DEPLOY / "k8s").glob("*.yaml"))
# The newest schemas bundled, and the oldest release with gRPC probes (GA in 1.27) kept.
VERSIONS = (kubernetes_validate.latest_version(), "1.29")


def resources() -> list[dict]:
    return [doc for path in MANIFESTS for doc in yaml.safe_load_all(path.read_text()) if doc]


def one(kind: str, name: str | None = None) -> dict:
    (found,) = [
        r for r in resources() if r["kind"] == kind and name in (None, r["metadata"]["name"])
    ]
    return found


def flag(args: list[str], name: str) -> str:
    (value,) = [a.split("=", 1)[1] for a in args if a.startswith(f"--{name}=")]
    return value


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_manifests_are_valid_kubernetes_resources(path, version):
    docs = [doc for doc in yaml.safe_load_all(path.read_text()) if doc]
    assert docs
    for doc in docs:
        kubernetes_validate.validate(doc, version, strict=True)  # raises on a problem


def test_a_broken_manifest_is_refused():
    deployment = one("Deployment")
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["grpc"]["port"] = (
        "fifty"
    )
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, VERSIONS[0], strict=True)


def test_the_deployment_drains_within_its_termination_grace():
    pod = one("Deployment")["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    grace = float(flag(container["args"], "grace"))
    pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    # The kubelet sends SIGKILL this long after the preStop hook starts.
    assert pod["terminationGracePeriodSeconds"] >= float(pre_stop[1]) + grace + 5
    # Liveness never fails during a drain (health is NOT_SERVING for `grace` at most).
    live = container["livenessProbe"]
    assert live["periodSeconds"] * live["failureThreshold"] > grace
    assert container["readinessProbe"]["grpc"]["port"] == 50051


def test_the_pod_is_locked_down_and_matches_the_image():
    pod = one("Deployment")["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["resources"]["requests"]["cpu"] == container["resources"]["limits"]["cpu"]
    containerfile = (DEPLOY / "Containerfile").read_text()
    assert f"USER {pod['securityContext']['runAsUser']}:" in containerfile
    # The image's build stage runs the script test_wheel.py runs.
    assert "RUN deploy/build-wheel.sh /wheels" in containerfile
    # The seal keys: the file the flag names is in the mounted Secret, the image's default
    # too, and the example Secret is a key file the service reads.
    key_file = flag(container["args"], "seal-key-file")
    assert f'"--seal-key-file", "{key_file}"' in containerfile
    (mount,) = [m for m in container["volumeMounts"] if m["name"] == "seal-keys"]
    assert mount["readOnly"] and Path(key_file).parent == Path(mount["mountPath"])
    (volume,) = [v for v in pod["volumes"] if v["name"] == "seal-keys"]
    secret = one("Secret")
    assert volume["secret"]["secretName"] == secret["metadata"]["name"]
    assert sealing.SealKeys.parse(secret["stringData"][Path(key_file).name]).ids
    # The state folder (XDG_STATE_HOME) is a volume, so writable on a read-only root.
    state = re.search(r"XDG_STATE_HOME=(\S+)", containerfile)
    assert state is not None
    assert state[1] in [m["mountPath"] for m in container["volumeMounts"]]


def test_the_services_select_the_pods_and_one_is_headless():
    labels = one("Deployment")["spec"]["template"]["metadata"]["labels"]
    services = [r for r in resources() if r["kind"] == "Service"]
    assert {s["spec"].get("clusterIP") for s in services} == {None, "None"}
    for service in services:
        assert service["spec"]["selector"].items() <= labels.items()
        assert "grpc" in [p["name"] for p in service["spec"]["ports"]]
    hpa = one("HorizontalPodAutoscaler")
    assert hpa["spec"]["scaleTargetRef"]["name"] == one("Deployment")["metadata"]["name"]
    assert hpa["spec"]["minReplicas"] >= 2
