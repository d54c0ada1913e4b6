#!/usr/bin/env python3
"""Checks TweetCache's IIIF Presentation 3 documents with a kept validator.

Every document reachable from the top Collection is loaded by the iiif-prezi3
package (PyPI; pydantic models of the Presentation 3 schema), which rejects what
the schema does not allow; properties the schema does not know are reported too.
Then every Image API service a Canvas paints with must resolve: its info.json
answers 200 with the same id. Thumbnails must answer 200.

  scripts/iiif-presentation-check.py URL                   a server: URL of collection.json
  scripts/iiif-presentation-check.py --map PREFIX=DIR URL  an export: a URL starting with
                                                           PREFIX is read from DIR instead
  --manifest (first) when URL is a Manifest rather than a Collection.

Prints a JSON summary; exit status 0 when nothing is wrong, 1 otherwise.
"""
import json
import sys
import urllib.request

try:
    import iiif_prezi3
    from pydantic import BaseModel
except ImportError:
    sys.exit("iiif-presentation-check: needs the iiif-prezi3 package (pip install iiif-prezi3)")

args = sys.argv[1:]
prefix = folder = None
top_kind = "Collection"
if args[:1] == ["--manifest"]:
    top_kind, args = "Manifest", args[1:]
if args[:1] == ["--map"] and len(args) > 1 and "=" in args[1]:
    prefix, folder = args[1].split("=", 1)
    args = args[2:]
if len(args) != 1:
    sys.exit(__doc__)
top = args[0]
errors = []
counts = {"collections": 0, "manifests": 0, "canvases": 0, "services": 0, "thumbnails": 0}


def fetch(url):
    """Bytes and content type of url: from the export folder when it is under base."""
    if folder is not None and url.startswith(prefix):
        path = folder.rstrip("/") + "/" + url[len(prefix):].lstrip("/")
        if ".." in path.split("/"):
            raise ValueError("dot-dot in " + url)
        with open(path, "rb") as f:
            return f.read(), "file"
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read(), response.headers.get("Content-Type", "")


def extras(model, where):
    """Properties the Presentation 3 schema does not define (the models accept them silently)."""
    if isinstance(model, BaseModel):
        extra = getattr(model, "model_extra", None) or {}
        for key in extra:
            if key != "@context":
                errors.append(f"{where}: property {key!r} is not in the Presentation 3 schema")
        for name in type(model).model_fields:
            extras(getattr(model, name), where)
        root = getattr(model, "root", None)
        if root is not None and root is not model:
            extras(root, where)
    elif isinstance(model, (list, tuple)):
        for item in model:
            extras(item, where)


def load(url, kind):
    try:
        body, content_type = fetch(url)
    except Exception as error:  # noqa: BLE001 - every failure is a finding
        errors.append(f"{url}: cannot fetch ({error})")
        return None
    if folder is None and not content_type.startswith("application/ld+json"):
        errors.append(f"{url}: Content-Type {content_type!r}, expected application/ld+json")
    try:
        doc = json.loads(body)
    except ValueError as error:
        errors.append(f"{url}: not JSON ({error})")
        return None
    if doc.get("@context") != "http://iiif.io/api/presentation/3/context.json":
        errors.append(f"{url}: @context is not Presentation 3")
    if doc.get("id") != url:
        errors.append(f"{url}: id is {doc.get('id')!r}")
    try:
        model = (iiif_prezi3.Collection if kind == "Collection" else iiif_prezi3.Manifest)(**doc)
    except Exception as error:  # noqa: BLE001
        errors.append(f"{url}: rejected by iiif-prezi3: {error}")
        return None
    extras(model, url)
    return doc


def check_resource(url, what):
    try:
        body, _ = fetch(url)
        if not body:
            errors.append(f"{what} {url}: empty")
    except Exception as error:  # noqa: BLE001
        errors.append(f"{what} {url}: {error}")


def check_service(service_id, width, height):
    counts["services"] += 1
    info_url = service_id + "/info.json"
    try:
        info = json.loads(fetch(info_url)[0])
    except Exception as error:  # noqa: BLE001
        errors.append(f"service {info_url}: {error}")
        return
    if info.get("id") != service_id:
        errors.append(f"service {info_url}: id is {info.get('id')!r}")
    if (info.get("width"), info.get("height")) != (width, height):
        errors.append(f"service {info_url}: {info.get('width')}x{info.get('height')}, canvas {width}x{height}")


def walk(url, kind, seen):
    if url in seen:
        return
    seen.add(url)
    doc = load(url, kind)
    if doc is None:
        return
    if kind == "Collection":
        counts["collections"] += 1
        for item in doc.get("items", []):
            walk(item["id"], item["type"], seen)
        return
    counts["manifests"] += 1
    if not doc.get("items"):
        errors.append(f"{url}: a Manifest without Canvases")
    for thumb in doc.get("thumbnail", []):
        check_resource(thumb["id"], "thumbnail")
    for canvas in doc.get("items", []):
        counts["canvases"] += 1
        for thumb in canvas.get("thumbnail", []):
            counts["thumbnails"] += 1
            check_resource(thumb["id"], "thumbnail")
        for page in canvas.get("items", []):
            for annotation in page.get("items", []):
                if annotation.get("target") != canvas["id"]:
                    errors.append(f"{annotation['id']}: target is not its canvas")
                body = annotation.get("body", {})
                for service in body.get("service", []):
                    check_service(service["id"], canvas["width"], canvas["height"])


walk(top, top_kind, set())
import importlib.metadata
print(json.dumps({"validator": "iiif-prezi3 " + importlib.metadata.version("iiif-prezi3"), **counts,
                  "errors": errors[:50]}, indent=2))
sys.exit(1 if errors else 0)
