"""A selection as Kubernetes manifests: a Deployment and a Service for a one-node server, a
LeaderWorkerSet (kubernetes-sigs/lws, API ``leaderworkerset.x-k8s.io/v1``) for a multi-node
one, both groups and a router for a PD selection.

Owns how the docker options of hardware.yaml become a pod (the vendor's device-plugin
resource, shared memory as a memory-backed ``/dev/shm``, the host folders a vendor mounts,
privileges, and the options of the model's image a pod has a field for, naming in the file
the others, such as ``--ulimit``, which only the node's container runtime sets), the model cache
volume (one claim every pod of the file mounts; its name, size and access mode and the token's
Secret are hardware.yaml's ``containers.kubernetes``), and what fills a
placeholder in a pod: the group's leader address and the pod's rank from the variables the LWS
controller sets in each pod (``LWS_LEADER_ADDRESS``, ``LWS_WORKER_INDEX``), the pod's own
address from the downward API, a PD server's address from its Service. Docker's ``--ipc=host``
and ``--group-add`` have no pod field: the pod's one container shares its memory with itself,
and it runs as root. The printed text is ``deploy.py``'s YAML; the Playground's ``deploy.js``
mirrors this module. Must not compose a command (``resolve.py``).
"""

from __future__ import annotations

import re

from macros.engine.model import Database, Model
from macros.engine.results import Resolution
from macros.site import render, runmodes
from macros.site import servers as deploy

LWS_API = "leaderworkerset.x-k8s.io/v1"
LWS_LABEL = "leaderworkerset.sigs.k8s.io"
# What LWS sets in every pod of a group (api/leaderworkerset/v1/leaderworkerset_types.go)
LWS_ENV = {"leader": "LWS_LEADER_ADDRESS", "rank": "LWS_WORKER_INDEX"}
POD_IP = "POD_IP"
# The docker options of a model's image (docker_images args) a pod has a field for; any other
# (--ulimit: Kubernetes has no per-pod resource limits of that kind) is named in the file's
# header for the reader to give the nodes' container runtime instead.
_POD_FIELDS = ("--privileged", "--cap-add", "--shm-size", "-v", "--volume", "-e", "--env", "-w")
_DOCKER_UNITS = {"b": "", "k": "Ki", "m": "Mi", "g": "Gi"}  # docker's sizes are binary


def dns_name(text: str) -> str:
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9-]", "-", text.lower())).strip("-")[:50]


def quantity(docker_size: str) -> str:
    m = re.fullmatch(r"([0-9]+)([bkmgBKMG]?)", docker_size)
    if m is None:
        raise ValueError(f"hardware.yaml: '{docker_size}' is no docker size (like 32g)")
    return m.group(1) + _DOCKER_UNITS[(m.group(2) or "b").lower()]


def _escape(word: str) -> str:
    """Kubernetes expands ``$(NAME)`` in a command; a literal one is written ``$$(NAME)``."""
    return word.replace("$(", "$$(")


def pod_spec(db: Database, res: Resolution, words: list[str], gpus: bool,
             extra_env: list[dict], table: dict[str, str]) -> dict:
    """The pod of one server (``gpus``) or of the router: one container with the command's
    words, its environment, the vendor's devices and privileges, shared memory and the cache."""
    vendor = db.containers.vendors[db.platforms[res.hw].vendor.value]
    kube = db.containers.kubernetes
    container: dict = {"name": "sglang", "image": res.docker_image,
                       "command": words}
    env = list(extra_env)
    if gpus:  # the command's environment is the server's, not the router's
        env += [{"name": n, "value": deploy.fill(_escape(v), table)}
                for n, v in deploy.env_pairs(res)]
    mounts, volumes, security, pod = [], [], {}, {}
    for source, o in deploy.option_sources(db, res):
        if source in ("vendor", "image") and not gpus or (
                source == "image" and o.name not in _POD_FIELDS):
            continue  # the router's pod; an image's option no pod field sets (no_pod_field)
        if o.name in ("--gpus", "--device"):
            container["resources"] = {"limits": {deploy.resource(db, res):
                                                 deploy.devices(db, res)}}
        elif o.name == "--privileged":
            security["privileged"] = True
        elif o.name == "--cap-add":
            security.setdefault("capabilities", {"add": []})["add"].append(o.value)
        elif o.name == "--security-opt":
            if o.value != "seccomp=unconfined":
                raise ValueError(f"hardware.yaml: --security-opt {o.value} has no pod field here")
            security["seccompProfile"] = {"type": "Unconfined"}
        elif o.name == "--shm-size" and gpus:
            volumes[:] = [v for v in volumes if v["name"] != "shm"]  # the last one wins, as in docker
            mounts[:] = [m for m in mounts if m["name"] != "shm"]
            volumes.append({"name": "shm", "emptyDir": {"medium": "Memory",
                                                        "sizeLimit": quantity(o.value)}})
            mounts.append({"name": "shm", "mountPath": "/dev/shm"})
        elif o.name == "-w":
            container["workingDir"] = o.value
        elif o.name in ("-v", "--volume") and gpus:
            host, _, inside = o.value.partition(":")
            inside = inside.split(":")[0]
            name = "cache" if source == "cache" else f"host-{len(volumes)}"
            volumes.append({"name": name, "persistentVolumeClaim": {"claimName": kube.cache_claim}}
                           if source == "cache" else {"name": name, "hostPath": {"path": host}})
            mounts.append({"name": name, "mountPath": inside})
        elif o.name in ("-e", "--env"):
            name, eq, value = o.value.partition("=")
            env.append({"name": name, "value": value} if eq else {"name": name, "valueFrom": {
                "secretKeyRef": {"name": kube.token_secret, "key": name, "optional": True}}})
        elif o.name in ("--network", "--net") and o.value == "host" and vendor.host_network:
            pod["hostNetwork"] = True
            pod["dnsPolicy"] = "ClusterFirstWithHostNet"
        elif o.name in ("-p", "--publish"):
            port = int(o.value.split(":")[-1])
            container["ports"] = [{"name": "http", "containerPort": port}]
    if env:
        container["env"] = env
    if mounts:
        container["volumeMounts"] = mounts
    if security:
        container["securityContext"] = security
    pod["containers"] = [container]
    if volumes:
        pod["volumes"] = volumes
    return pod


def _labels(app: str, component: str) -> dict:
    return {"app.kubernetes.io/name": app, "app.kubernetes.io/component": component}


def _service(name: str, selector: dict, ports: dict[str, int]) -> dict:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": {"selector": selector, "ports": [
                {"name": key, "port": port, "targetPort": port} for key, port in ports.items()]}}


def _workload(name: str, labels: dict, nodes: int, pod: dict) -> tuple[dict, dict]:
    """A Deployment of one pod, or a LeaderWorkerSet of one group of ``nodes`` pods; with the
    labels that select its first pod (the one serving HTTP)."""
    template = {"metadata": {"labels": labels}, "spec": pod}
    if nodes == 1:
        return ({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
                 "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                          "template": template}}, labels)
    lws = {"apiVersion": LWS_API, "kind": "LeaderWorkerSet", "metadata": {"name": name},
           "spec": {"replicas": 1, "leaderWorkerTemplate": {
               "size": nodes, "restartPolicy": "RecreateGroupOnPodRestart",
               "workerTemplate": template}}}
    return lws, {f"{LWS_LABEL}/name": name, f"{LWS_LABEL}/worker-index": "0"}


def manifests(db: Database, model: Model, res: Resolution, release: str | None = None
              ) -> list[dict]:
    app = dns_name(model.id)
    gs = deploy.groups(db, model, res, release)
    names = {g.role: app if g.role == "server" else f"{app}-{g.role}" for g in gs}
    target = {"leader": f"$({LWS_ENV['leader']})", "rank": f"$({LWS_ENV['rank']})",
              "self": f"$({POD_IP})", **{role: names[role] for role in ("prefill", "decode")
                                         if role in names}}
    table = deploy.fills(db, "", None, target)
    kube = db.containers.kubernetes
    docs: list[dict] = [{"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                         "metadata": {"name": kube.cache_claim},
                         "spec": {"accessModes": [kube.cache_access],
                                  "resources": {"requests": {"storage": kube.cache_size}}}}]
    own_ip = [{"name": POD_IP, "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}]
    for g in gs:
        words = [deploy.fill(_escape(w), table) for w in deploy.server_words(g.res)]
        uses_ip = any(f"$({POD_IP})" in w for w in words + [deploy.fill(e, table)
                                                             for e in g.res.env])
        pod = pod_spec(db, g.res, words, True, own_ip if uses_ip else [], table)
        workload, leader = _workload(names[g.role], _labels(app, g.role), g.res.nodes, pod)
        ports = {"http": int(runmodes.server_port(db, g.res))}
        if g.role == "prefill":
            ports["bootstrap"] = model.info.pd.bootstrap_port
        docs += [workload, _service(names[g.role], leader, ports)]
    if res.pd is not None:
        words = [deploy.fill(_escape(w), table) for w in deploy.router_words(res)]
        pod = pod_spec(db, res, words, False, [], table)
        router = f"{app}-router"
        workload, leader = _workload(router, _labels(app, "router"), 1, pod)
        docs += [workload, _service(router, leader, {"http": model.info.pd.router.port})]
    return docs


def no_pod_field(db: Database, gs: list[deploy.Group]) -> list[str]:
    """The docker options of the model's image (``docker_images`` args) that no pod field sets,
    as written (``--ulimit memlock=-1``): Kubernetes sets no ulimit per pod, only the node's
    container runtime does."""
    out: list[str] = []
    for g in gs:
        for source, o in deploy.option_sources(db, g.res):
            text = o.name if o.value is None else f"{o.name} {o.value}"
            if source == "image" and o.name not in _POD_FIELDS and text not in out:
                out.append(text)
    return out


def manifest_file(db: Database, model: Model, res: Resolution, lang: str,
                  release: str | None = None) -> deploy.File:
    """``MODEL.k8s.yaml``: the manifests as one multi-document file for ``kubectl apply -f``."""
    name = f"{dns_name(model.id)}.k8s.yaml"
    texts = [render.text(db, model, "deploy.k8s.head", lang, name=model.info.name, file=name)]
    texts += deploy.release_texts(db, model, res, lang)
    gs = deploy.groups(db, model, res, release)
    if any(g.res.nodes > 1 for g in gs):
        texts.append(render.text(db, model, "deploy.k8s.lws", lang))
    unset = no_pod_field(db, gs)
    if unset:
        texts.append(render.text(db, model, "deploy.k8s.no-field", lang,
                                 options=", ".join(unset)))
    texts += deploy.missing_texts(db, model, gs, lang)
    body: list[str] = []
    for doc in manifests(db, model, res, release):
        body += ["---"] + deploy.yaml_lines(doc)
    return deploy._file(db, name, deploy.comment_lines(texts), body)
