"""Sources in other tools' formats, written the way their public documentation describes them: ChatGPT's and
Claude's data exports, mem0's get_all answer, Claude Code's CLAUDE.md and memory folder, Obsidian and
basic-memory notes. Tests build them in temp folders; nothing here is copied from a real export."""

from __future__ import annotations

import json
import zipfile
from datetime import datetime, timezone
from pathlib import Path

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc).timestamp()


def chatgpt_message(mid, role, text, t, *, content_type="text", hidden=False):
    meta = {"is_visually_hidden_from_conversation": True} if hidden else {}
    parts = text if isinstance(text, list) else [text]
    return {"id": mid, "author": {"role": role, "name": None, "metadata": {}}, "create_time": t,
            "update_time": None, "content": {"content_type": content_type, "parts": parts},
            "status": "finished_successfully", "end_turn": role == "assistant", "weight": 1.0,
            "metadata": meta, "recipient": "all"}


def chatgpt_conversation(cid, title, turns, *, t0=T0, branch=None):
    """A conversation as ChatGPT's conversations.json holds it: a tree of nodes under a root without a
    message, a hidden system message first; ``turns`` are (role, text) on the path shown last. ``branch``:
    (index of the turn it replaces, text): an earlier answer the user regenerated, off that path."""
    mapping = {"root": {"id": "root", "message": None, "parent": None, "children": ["sys"]},
               "sys": {"id": "sys", "message": chatgpt_message("sys", "system", "", t0, hidden=True),
                       "parent": "root", "children": []}}
    parent = "sys"
    for n, (role, text) in enumerate(turns):
        nid = f"{cid}-m{n}"
        mapping[nid] = {"id": nid, "message": chatgpt_message(nid, role, text, t0 + 60 * n), "parent": parent,
                        "children": []}
        mapping[parent]["children"].append(nid)
        if branch and branch[0] == n:
            old = f"{cid}-old{n}"
            mapping[old] = {"id": old, "message": chatgpt_message(old, role, branch[1], t0 + 60 * n - 30),
                            "parent": parent, "children": []}
            mapping[parent]["children"].insert(0, old)
        parent = nid
    return {"title": title, "create_time": t0, "update_time": t0 + 60 * len(turns), "mapping": mapping,
            "moderation_results": [], "current_node": parent, "plugin_ids": None, "conversation_id": cid,
            "conversation_template_id": None, "gizmo_id": None, "is_archived": False, "safe_urls": [],
            "default_model_slug": "gpt-4o", "id": cid}


def iso(t):
    return datetime.fromtimestamp(t, tz=timezone.utc).isoformat().replace("+00:00", "Z")


def claude_conversation(uuid, name, turns, *, t0=T0, attachment=None):
    msgs = []
    for n, (sender, text) in enumerate(turns):
        msgs.append({"uuid": f"{uuid}-m{n}", "text": text,
                     "content": [{"start_timestamp": iso(t0 + 60 * n), "stop_timestamp": iso(t0 + 60 * n + 5),
                                  "type": "text", "text": text, "citations": []}],
                     "sender": sender, "created_at": iso(t0 + 60 * n), "updated_at": iso(t0 + 60 * n),
                     "attachments": [], "files": []})
    if attachment:
        msgs[0]["attachments"].append({"file_name": attachment, "file_size": 120, "file_type": "txt",
                                       "extracted_content": "attached text that is left out"})
    return {"uuid": uuid, "name": name, "summary": "", "created_at": iso(t0),
            "updated_at": iso(t0 + 60 * len(turns)), "account": {"uuid": "acct-1"}, "chat_messages": msgs}


def write_export_zip(path: Path, conversations, *, extra=None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("conversations.json", json.dumps(conversations))
        zf.writestr("user.json", json.dumps({"id": "user-1", "email": "me@example.com"}))
        zf.writestr("chat.html", "<html></html>")
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return path


def mem0_record(mid, text, *, user="alice", categories=("preferences",), run=None, agent=None):
    rec = {"id": mid, "memory": text, "hash": f"h-{mid}", "metadata": None, "categories": list(categories),
           "created_at": "2024-07-20T02:04:20.123456-07:00", "updated_at": "2024-07-21T10:00:00.000000-07:00",
           "user_id": user}
    if run:
        rec["run_id"] = run
    if agent:
        rec["agent_id"] = agent
    return rec


CLAUDE_MD = """\
# Acme shop

Acme is a web shop written in TypeScript.

## Commands
- Build: `npm run build`
- Test: `npm test -- --watch=false`

## Code style
- Two-space indentation
### Naming
camelCase for functions, PascalCase for components.

```
## not a heading: inside a code block
```

## Architecture
See @docs/architecture.md for the services.
"""

MEMORY_MD = """\
# Memory

## Topics
- [Debugging notes](debugging.md): flaky tests and how they were fixed
- [User preferences](user_prefs.md): how the user likes answers

## Build
- The CI image caches node_modules; clear it when lockfile changes.
"""

DEBUGGING_MD = """\
---
name: Debugging notes
description: flaky tests and how they were fixed
type: feedback
---

The checkout test is flaky when the clock crosses midnight; freeze time in it.
"""

USER_PREFS_MD = """\
---
name: User preferences
description: how the user likes answers
type: user
---

Prefers short answers with code first.
"""


def claude_code_project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "CLAUDE.md").write_text(CLAUDE_MD, encoding="utf-8")
    return root


def claude_code_memory(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "MEMORY.md").write_text(MEMORY_MD, encoding="utf-8")
    (folder / "debugging.md").write_text(DEBUGGING_MD, encoding="utf-8")
    (folder / "user_prefs.md").write_text(USER_PREFS_MD, encoding="utf-8")
    return folder


def obsidian_vault(root: Path) -> Path:
    (root / ".obsidian").mkdir(parents=True)
    (root / ".obsidian" / "app.json").write_text("{}")
    (root / "Projects").mkdir()
    (root / "Daily Notes").mkdir()
    (root / "Home.md").write_text("---\ntags: [index, start]\naliases: [Start page]\n---\n"
                                  "Start here: [[Acme launch]] and [[2024-03-01|today]]. #pinned\n", encoding="utf-8")
    (root / "Projects" / "Acme launch.md").write_text(
        "---\nstatus: active\ndue: 2024-04-01\nid: obsidian-own-id\n---\n# Launch plan\n\nShip on April 1. "
        "See [[Home]].\n\n```\n#not-a-tag inside code\n```\n", encoding="utf-8")
    (root / "Daily Notes" / "2024-03-01.md").write_text("Met the team about [[Acme launch]]. #meeting\n",
                                                         encoding="utf-8")
    (root / "Projects" / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return root


def basic_memory_project(root: Path) -> Path:
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "coffee-brewing.md").write_text(
        "---\ntitle: Coffee Brewing Methods\ntype: note\npermalink: notes/coffee-brewing-methods\n"
        "tags:\n- coffee\n- brewing\n---\n\n# Coffee Brewing Methods\n\n## Observations\n"
        "- [method] Pour over gives a clean cup #brewing\n- [preference] Medium roast works best\n\n"
        "## Relations\n- relates_to [[Coffee Bean Origins]]\n- requires [[Proper Grinding Technique]]\n",
        encoding="utf-8")
    (root / "notes" / "coffee-origins.md").write_text(
        "---\ntitle: Coffee Bean Origins\ntype: note\npermalink: notes/coffee-bean-origins\n---\n\n"
        "# Coffee Bean Origins\n\n## Observations\n- [origin] Ethiopian beans are fruity\n", encoding="utf-8")
    return root
