"""TEST DOUBLE for an Elasticsearch cluster (none can be installed on these machines): an HTTP server that
checks every request against Elastic's published OpenAPI specification and answers with minimal valid
responses from a little state (indices, aliases, templates, stored documents).

It is not a search engine and returns no ranking: searches answer with the stored documents of the target
in insertion order (filters on ``doc_id``-like terms and ``ids`` are honoured so that the backend's
bookkeeping stays meaningful). What it checks, per request:

- the method and path are an operation of the spec (path templates matched literal segments first);
- every query parameter is one the operation declares;
- the JSON body validates against the operation's request body schema (OpenAPI 3.0 read as JSON Schema
  draft 4, ``$ref`` resolved in the spec), and no object carries a property its schema does not name
  (a typo such as ``num_candidate`` is a violation even where the spec leaves objects open);
- NDJSON bulk bodies: every action line against ``_global.bulk.OperationContainer``;
- the compatibility headers the client sends (``Accept``/``Content-Type`` with ``compatible-with=<major>``).

Violations are collected in ``violations`` (method, path, reason); requests in ``requests``.
"""

from __future__ import annotations

import fnmatch
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

# The serverless edition of the spec leaves out what only self-managed clusters have; each entry was checked
# against the Elasticsearch reference: schema -> properties it also takes on a stack cluster.
STACK_ONLY_PROPERTIES = {
    "indices._types.IndexSettings": {"number_of_shards": {"type": "integer"},
                                     "number_of_replicas": {"type": "integer"}},
}
STACK_ONLY: dict[int, dict] = {}  # id(schema object) -> extra properties, filled when the spec loads


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any  # parsed JSON, a list of NDJSON lines, or None
    operation: str | None = None  # "<METHOD> <path template>"


class Spec:
    """The OpenAPI document, with operations matched by method and path and bodies validated."""

    def __init__(self, path: Path):
        import jsonschema

        # oneOf in Elastic's spec renders TypeScript unions, which are not exclusive ("-1" is both the
        # literal and a string of a Duration): validated as anyOf
        self.doc = json.loads(path.read_text().replace('"oneOf":', '"anyOf":'))
        self._validator = jsonschema.Draft4Validator  # OpenAPI 3.0 schemas are (nearly) JSON Schema draft 4
        for name, extra in STACK_ONLY_PROPERTIES.items():
            STACK_ONLY[id(self.doc["components"]["schemas"][name])] = extra
        self.routes: list[tuple[int, re.Pattern, str, dict]] = []
        for template, item in self.doc["paths"].items():
            params = template.count("{")
            pattern = re.compile("^" + re.sub(r"\{[^/]+\}", "[^/]+", template) + "$")
            self.routes.append((params, pattern, template, item))
        self.routes.sort(key=lambda r: (r[0], -len(r[2])))

    def resolve(self, node: Any) -> Any:
        while isinstance(node, dict) and "$ref" in node:
            node = self._pointer(node["$ref"])
        return node

    def _pointer(self, ref: str) -> Any:
        node: Any = self.doc
        for part in ref.lstrip("#/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def _rooted(self, schema: Any) -> Any:
        """A validator for ``schema`` whose ``#/components/...`` references resolve in the spec: the schema
        is wrapped in a root that carries the spec's components."""
        return self._validator({"components": self.doc["components"], "allOf": [schema]})

    def operation(self, method: str, path: str) -> tuple[str, dict] | None:
        for _, pattern, template, item in self.routes:
            if pattern.match(path) and method.lower() in item:
                return template, item[method.lower()]
        return None

    def query_parameters(self, op: dict) -> set[str]:
        return {p["name"] for p in map(self.resolve, op.get("parameters", [])) if p.get("in") == "query"}

    def body_schema(self, op: dict) -> dict | None:
        body = self.resolve(op.get("requestBody")) if op.get("requestBody") else None
        if not body:
            return None
        content = body.get("content", {})
        media = content.get("application/json") or next(iter(content.values()), {})
        return media.get("schema")

    def errors(self, instance: Any, schema: dict) -> list[str]:
        """Schema errors plus properties no schema names (strict), as 'at <path>: <message>'."""
        validator = self._rooted(schema)
        out = [f"at /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}"
               for e in validator.iter_errors(instance)]
        out += self._unknown(instance, schema, "")
        return out

    # -- strictness: properties that no schema along the way names
    def _names(self, schema: Any, instance: Any, depth: int = 0) -> tuple[dict[str, Any], bool]:
        """(property -> schema, open) of an object schema, following $ref, allOf and the oneOf/anyOf
        branches the instance satisfies."""
        schema = self.resolve(schema)
        if not isinstance(schema, dict) or depth > 30:
            return {}, True
        props: dict[str, Any] = dict(schema.get("properties", {}))
        props.update(STACK_ONLY.get(id(schema), {}))
        is_open = bool(schema.get("additionalProperties")) or "patternProperties" in schema or (
            not props and not any(k in schema for k in ("allOf", "oneOf", "anyOf")))
        for sub in schema.get("allOf", []):
            p, o = self._names(sub, instance, depth + 1)
            props.update(p)
            is_open = is_open or o  # a bare {"type": "object"} member (a field-keyed query) opens it
        branches = [b for b in schema.get("anyOf", []) if self._fits(instance, b)]
        for sub in branches:
            p, o = self._names(sub, instance, depth + 1)
            props.update(p)
            is_open = is_open or o
        if schema.get("anyOf") and not branches:
            is_open = True  # the schema errors already say it
        return props, is_open

    def _fits(self, instance: Any, schema: Any) -> bool:
        return self._rooted(schema).is_valid(instance)

    def _unknown(self, instance: Any, schema: Any, at: str) -> list[str]:
        schema = self.resolve(schema)
        out: list[str] = []
        if isinstance(instance, dict) and isinstance(schema, dict):
            props, is_open = self._names(schema, instance)
            for key, value in instance.items():
                if key in props:
                    out += self._unknown(value, props[key], f"{at}/{key}")
                elif not is_open:
                    out.append(f"at {at or '/'}: property {key!r} is not in the specification")
                else:
                    extra = self.resolve(schema.get("additionalProperties"))
                    if isinstance(extra, dict):
                        out += self._unknown(value, extra, f"{at}/{key}")
        elif isinstance(instance, list) and isinstance(schema, dict):
            items = schema.get("items")
            if items is None:
                for sub in schema.get("anyOf", []):
                    sub = self.resolve(sub)
                    if isinstance(sub, dict) and sub.get("type") == "array" and self._fits(instance, sub):
                        items = sub.get("items")
                        break
            for n, value in enumerate(instance if items is not None else []):
                out += self._unknown(value, items, f"{at}/{n}")
        return out


@dataclass
class Index:
    mappings: dict
    settings: dict = field(default_factory=dict)
    docs: dict[str, dict] = field(default_factory=dict)
    seq: int = 0


class EsDouble:
    """The server: ``with EsDouble(spec_path) as es: ... es.url ...``; ``fail`` maps an operation
    ("POST /{index}/_search") to (status, error type, reason, times): that error is answered the next
    ``times`` requests of the operation, for error-path tests; ``partial`` maps a search operation to how many
    of its next answers are partial (HTTP 200, one shard failed, its hits missing: a node lost mid-query)."""

    def __init__(self, spec_path: Path, major: int = 8):
        self.spec = Spec(spec_path)
        self.major = major
        self.requests: list[Request] = []
        self.violations: list[tuple[str, str, str]] = []
        self.fail: dict[str, tuple[int, str, str, int]] = {}
        self.partial: dict[str, int] = {}
        self.indices: dict[str, Index] = {}
        self.aliases: dict[str, set[str]] = {}  # alias -> indices
        self.templates: dict[str, dict] = dict(BUILTIN_TEMPLATES)
        self.scrolls: dict[str, list[dict]] = {}
        self.lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- lifecycle
    def __enter__(self) -> EsDouble:
        double = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _any(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                status, body = double.handle(self.command, self.path, dict(self.headers), raw)
                data = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("X-Elastic-Product", "Elasticsearch")
                self.send_header("Content-Type", f"application/vnd.elasticsearch+json;compatible-with={double.major}")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _any

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # -- checking
    def handle(self, method: str, raw_path: str, headers: dict[str, str], raw: bytes) -> tuple[int, Any]:
        url = urlsplit(raw_path)
        path, query = unquote(url.path), dict(parse_qsl(url.query, keep_blank_values=True))
        body: Any = None
        if raw:
            text = raw.decode()
            body = [json.loads(line) for line in text.splitlines() if line.strip()] \
                if "ndjson" in headers.get("Content-Type", "") or path.endswith("/_bulk") else json.loads(text)
        req = Request(method, path, query, {k.lower(): v for k, v in headers.items()}, body)
        with self.lock:
            self.requests.append(req)
            self._check(req)
            failure = self.fail.get(req.operation or "")
            if failure:
                status, kind, reason, times = failure
                if times <= 1:
                    self.fail.pop(req.operation or "")
                else:
                    self.fail[req.operation or ""] = (status, kind, reason, times - 1)
                return status, {"error": {"type": kind, "reason": reason, "root_cause": [
                    {"type": kind, "reason": reason}]}, "status": status}
            if self.partial.get(req.operation or "", 0) > 0:
                self.partial[req.operation or ""] -= 1
                return 200, _partial()
            try:
                return self._answer(req)
            except (KeyError, ValueError, TypeError, AttributeError) as exc:  # a request the spec check flagged
                return 400, {"error": {"type": "parse_exception", "reason": f"{type(exc).__name__}: {exc}"},
                             "status": 400}

    def _violation(self, req: Request, reason: str) -> None:
        self.violations.append((req.method, req.path, reason))

    def _check(self, req: Request) -> None:
        for name in ("accept",) + (("content-type",) if req.body is not None else ()):
            value = req.headers.get(name, "")
            if f"compatible-with={self.major}" not in value.replace(" ", ""):
                self._violation(req, f"{name} header {value!r} lacks compatible-with={self.major}")
        found = self.spec.operation(req.method, req.path)
        if found is None:
            self._violation(req, "no such operation in the specification")
            return
        template, op = found
        req.operation = f"{req.method} {template}"
        allowed = self.spec.query_parameters(op)
        for name in req.query:
            if name not in allowed:
                self._violation(req, f"query parameter {name!r} is not in the specification of {req.operation}")
        if req.body is None:
            return
        schema = self.spec.body_schema(op)
        if schema is None:
            self._violation(req, f"{req.operation} takes no body")
            return
        if req.path.endswith("/_bulk"):
            self._check_bulk(req)
            return
        for error in self.spec.errors(req.body, schema):
            self._violation(req, error)

    def _check_bulk(self, req: Request) -> None:
        action_schema = {"$ref": "#/components/schemas/_global.bulk.OperationContainer"}
        lines = list(req.body)
        n = 0
        while n < len(lines):
            for error in self.spec.errors(lines[n], action_schema):
                self._violation(req, f"bulk line {n}: {error}")
            n += 1 if "delete" in lines[n] else 2

    # -- answering (minimal valid responses)
    def _targets(self, expr: str) -> list[str]:
        out: list[str] = []
        for name in expr.split(","):
            if name in self.aliases:
                out += sorted(self.aliases[name])
            else:
                out += [i for i in self.indices if fnmatch.fnmatchcase(i, name)]
        return out

    def _answer(self, req: Request) -> tuple[int, Any]:
        op = req.operation or ""
        parts = [p for p in req.path.split("/") if p]
        ack = {"acknowledged": True}
        shards = {"total": 1, "successful": 1, "failed": 0}
        if op == "GET /":
            return 200, {"name": "double", "cluster_name": "double", "cluster_uuid": "double", "tagline": "double",
                         "version": {"number": f"{self.major}.15.0", "build_flavor": "default"}}
        if op.endswith(" /_index_template/{name}"):
            if req.method == "DELETE":
                return (200, ack) if self.templates.pop(parts[1], None) is not None else (404, _missing(parts[1]))
            if req.method == "GET":
                names = [n for n in self.templates if fnmatch.fnmatchcase(n, parts[1])]
                return 200, {"index_templates": [{"name": n, "index_template": self.templates[n]} for n in names]}
            clash = _priority_clash(self.templates, parts[1], req.body or {})
            if clash:
                return 400, {"error": {"type": "illegal_argument_exception", "reason": clash}, "status": 400}
            self.templates[parts[1]] = req.body or {}
            return 200, ack
        if op == "PUT /{index}":
            if parts[0] in self.indices:
                return 400, {"error": {"type": "resource_already_exists_exception", "reason": parts[0]},
                             "status": 400}
            template = next((t for t in self.templates.values() if any(
                fnmatch.fnmatchcase(parts[0], p) for p in t.get("index_patterns", []))), {})
            mappings = (req.body or {}).get("mappings") or template.get("template", {}).get("mappings", {})
            self.indices[parts[0]] = Index(mappings, template.get("template", {}).get("settings", {}))
            for alias in (req.body or {}).get("aliases", {}):
                self.aliases.setdefault(alias, set()).add(parts[0])
            return 200, {**ack, "shards_acknowledged": True, "index": parts[0]}
        if op == "HEAD /{index}":
            return (200, None) if self._targets(parts[0]) else (404, None)
        if op == "POST /_reindex":
            source, dest = req.body["source"]["index"], req.body["dest"]["index"]
            if source not in self.indices or dest not in self.indices:
                return 404, _missing(dest if source in self.indices else source)
            rows = self.indices[source].docs
            self.indices[dest].docs.update({k: dict(v) for k, v in rows.items()})
            return 200, {"took": 1, "timed_out": False, "total": len(rows), "created": len(rows), "updated": 0,
                         "deleted": 0, "batches": 1, "version_conflicts": 0, "noops": 0, "failures": []}
        if op == "GET /{index}":
            names = self._targets(parts[0])
            return 200, {n: {"aliases": {a: {} for a, ix in self.aliases.items() if n in ix},
                             "mappings": self.indices[n].mappings, "settings": {"index": self.indices[n].settings}}
                         for n in names}
        if op == "DELETE /{index}":
            if any(c in parts[0] for c in "*?") or parts[0] == "_all":  # action.destructive_requires_name
                return 400, {"error": {"type": "illegal_argument_exception", "reason":
                                       "Wildcard expressions or all indices are not allowed"}, "status": 400}
            names = [n for n in parts[0].split(",") if n in self.indices]
            if not names:
                return 404, _missing(parts[0])
            for n in names:
                self.indices.pop(n)
                for members in self.aliases.values():
                    members.discard(n)
            return 200, ack
        if op in ("HEAD /_alias/{name}", "GET /_alias/{name}"):
            members = self.aliases.get(parts[1])
            if not members:
                return 404, {"error": f"alias [{parts[1]}] missing", "status": 404}
            return 200, {n: {"aliases": {parts[1]: {}}} for n in sorted(members)}
        if op == "POST /_aliases":
            for action in req.body["actions"]:
                (kind, args), = action.items()
                if args["index"] not in self.indices:
                    return 404, _missing(args["index"])
                members = self.aliases.setdefault(args["alias"], set())
                (members.add if kind == "add" else members.discard)(args["index"])
            return 200, ack
        if op.endswith("/_refresh"):
            return 200, {"_shards": shards}
        if op.endswith("/_bulk"):
            return 200, self._bulk(req.body)
        if op.endswith("/_count"):
            return 200, {"count": sum(len(self.indices[n].docs) for n in self._targets(parts[0])), "_shards": shards}
        if op.endswith("/_mget"):
            index = self._targets(parts[0])[0] if len(parts) > 1 else None
            docs = []
            for i in (req.body or {}).get("ids", []):
                src = self.indices[index].docs.get(i) if index else None
                docs.append({"_index": index, "_id": i, "found": src is not None,
                             **({"_source": src, "_version": 1} if src is not None else {})})
            return 200, {"docs": docs}
        if op.endswith("/_search") or op.startswith("POST /_search/scroll") or op.startswith("GET /_search/scroll"):
            return 200, self._search(req, parts)
        if op.startswith("DELETE /_search/scroll"):
            return 200, {"succeeded": True, "num_freed": 1}
        if op.endswith("/_create/{id}"):
            index = self.indices.setdefault(parts[0], Index({}))
            if parts[2] in index.docs:
                return 409, {"error": {"type": "version_conflict_engine_exception",
                                       "reason": f"[{parts[2]}]: version conflict, document already exists"},
                             "status": 409}
            index.seq += 1
            index.docs[parts[2]] = req.body
            return 201, _write(parts[0], parts[2], "created", index.seq)
        if op == "GET /{index}/_doc/{id}":
            index = self.indices.get(parts[0])
            src = index.docs.get(parts[2]) if index else None
            if src is None:
                return 404, {"_index": parts[0], "_id": parts[2], "found": False}
            return 200, {"_index": parts[0], "_id": parts[2], "_version": 1, "_seq_no": index.seq,
                         "_primary_term": 1, "found": True, "_source": src}
        if op == "DELETE /{index}/_doc/{id}":
            index = self.indices.get(parts[0])
            if not index or index.docs.pop(parts[2], None) is None:
                return 404, _write(parts[0], parts[2], "not_found", 0)
            return 200, _write(parts[0], parts[2], "deleted", index.seq)
        if op.endswith("/_update/{id}"):
            index = self.indices.get(parts[0])
            if not index or parts[2] not in index.docs:
                return 404, _missing(parts[0])
            index.docs[parts[2]].update(req.body.get("doc", {}))
            return 200, _write(parts[0], parts[2], "updated", index.seq)
        return 400, {"error": {"type": "test_double_gap", "reason": f"the double does not answer {op}"},
                     "status": 400}

    def _bulk(self, lines: list[dict]) -> dict:
        items, n = [], 0
        while n < len(lines):
            (kind, meta), = lines[n].items()
            index = self.indices.get(meta["_index"])
            if index is None:
                items.append({kind: {"_index": meta["_index"], "_id": meta.get("_id"), "status": 404,
                                     "error": {"type": "index_not_found_exception", "reason": "no such index"}}})
            elif kind == "delete":
                found = index.docs.pop(meta["_id"], None) is not None
                items.append({kind: {**_write(meta["_index"], meta["_id"], "deleted" if found else "not_found",
                                              index.seq), "status": 200 if found else 404}})
            else:
                index.docs[meta["_id"]] = lines[n + 1]
                index.seq += 1
                items.append({kind: {**_write(meta["_index"], meta["_id"], "created", index.seq), "status": 201}})
            n += 1 if kind == "delete" else 2
        return {"took": 1, "errors": any(i[next(iter(i))]["status"] >= 300 for i in items), "items": items}

    def _search(self, req: Request, parts: list[str]) -> dict:
        if parts[0] == "_search":  # a scroll continuation
            scroll_id = (req.body or {}).get("scroll_id") or req.query.get("scroll_id")
            hits = self.scrolls.pop(scroll_id, [])
            return _hits(hits, scroll_id)
        body = req.body or {}
        size = int(body.get("size", req.query.get("size", 10)))
        rows = []
        for name in self._targets(parts[0]):
            for _id, src in self.indices[name].docs.items():
                if _matches(_id, src, body.get("query")):
                    rows.append({"_index": name, "_id": _id, "_score": 1.0, "_source": src})
        if "scroll" in req.query:
            scroll_id = f"scroll-{len(self.requests)}"
            self.scrolls[scroll_id] = rows[size:]
            return _hits(rows[:size], scroll_id)
        return _hits(rows[:size])


# Templates every 8.x/9.x cluster has (x-pack stack templates), with their priority.
BUILTIN_TEMPLATES = {name: {"index_patterns": [f"{name}-*-*"], "priority": 100, "data_stream": {}}
                     for name in ("logs", "metrics", "synthetics")}


def _priority_clash(templates: dict[str, dict], name: str, body: dict) -> str | None:
    """Elasticsearch refuses a template whose patterns overlap another's at the same priority."""
    import re as _re

    def overlaps(a: str, b: str) -> bool:  # the cluster's own test: each pattern matched as an automaton
        probe = _re.sub(r"\*+", "x", a)
        return fnmatch.fnmatchcase(probe, b) or fnmatch.fnmatchcase(_re.sub(r"\*+", "x", b), a)

    for other, t in templates.items():
        if other != name and t.get("priority", 0) == body.get("priority", 0) and any(
                overlaps(a, b) for a in body.get("index_patterns", []) for b in t.get("index_patterns", [])):
            return (f"index template [{name}] has index patterns {body.get('index_patterns')} matching patterns "
                    f"from existing templates [{other}] with patterns ({other} => {t['index_patterns']}) that "
                    f"have the same priority [{body.get('priority', 0)}]")
    return None


def _matches(_id: str, src: dict, query: dict | None) -> bool:
    """Only what the backend's bookkeeping needs: ``bool.filter`` of ``term``/``terms`` and ``ids``."""
    if not query or "bool" not in query:
        return True
    for clause in query["bool"].get("filter", []):
        (kind, args), = clause.items()
        if kind in ("term", "terms"):
            (name, values), = args.items()
            values = values if isinstance(values, list) else [values.get("value") if isinstance(values, dict)
                                                              else values]
            if src.get(name) not in values:
                return False
        if kind == "ids" and _id not in args["values"]:
            return False
    return True


def _hits(rows: list[dict], scroll_id: str | None = None) -> dict:
    out = {"took": 1, "timed_out": False, "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
           "hits": {"total": {"value": len(rows), "relation": "eq"}, "max_score": 1.0 if rows else None,
                    "hits": rows}}
    return {**out, "_scroll_id": scroll_id} if scroll_id else out


def _partial() -> dict:
    """A search answer one of two shards did not give (its node left between the query and fetch phases)."""
    failure = {"shard": 0, "index": "lost", "node": "n1",
               "reason": {"type": "node_disconnected_exception", "reason": "[n1] disconnected"}}
    return {**_hits([]), "_shards": {"total": 2, "successful": 1, "skipped": 0, "failed": 1, "failures": [failure]}}


def _write(index: str, _id: str, result: str, seq: int) -> dict:
    return {"_index": index, "_id": _id, "_version": 1, "result": result, "_seq_no": seq, "_primary_term": 1,
            "_shards": {"total": 1, "successful": 1, "failed": 0}}


def _missing(name: str) -> dict:
    return {"error": {"type": "index_not_found_exception", "reason": f"no such index [{name}]"}, "status": 404}
