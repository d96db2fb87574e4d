"""ChatGPT and Claude data exports: each conversation is an item and becomes a session.

ChatGPT's ``conversations.json`` is a list of conversations; each holds its messages as a tree (``mapping``:
node id -> {message, parent, children}) because an edited prompt or a regenerated answer starts a branch.
The conversation as the user last saw it is the path from ``current_node`` up to the root. Claude's
``conversations.json`` is a list of conversations with their ``chat_messages`` in order.

Read: the text of user and assistant messages on that path (ChatGPT ``text`` and the text parts of
``multimodal_text``; Claude's ``text`` content blocks, or a message's ``text``), their times, the
conversation's title and times. Left out: system and tool messages, hidden messages (custom instructions),
images and files (a ``[image]`` / ``[file: name]`` mark stays in the text), code-interpreter and browsing
output, reasoning, other branches, attachments' extracted text, and the other files of the export.

Imported as one memory per conversation (a transcript) or one memory per message (``mode="turns"``); either
way the conversation's memories share a session id, ``chatgpt:<id>`` or ``claude:<uuid>``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from memory_curator.core.ingest.external import (
    ImportOptions,
    Source,
    SourceItem,
    epoch_time,
    iso_time,
    item_id,
    memory_fields,
    short_title,
    text_of,
)
from memory_curator.core.vault.codec import format_dt

ROLE_SOURCE = {"user": "user", "assistant": "ai"}
ROLE_LABEL = {"user": "User", "assistant": "Assistant"}


# -- ChatGPT ------------------------------------------------------------------------------------------


def is_chatgpt(data: Any) -> bool:
    return isinstance(data, list) and any(isinstance(c, dict) and isinstance(c.get("mapping"), dict) for c in data)


def is_claude(data: Any) -> bool:
    return isinstance(data, list) and any(isinstance(c, dict) and isinstance(c.get("chat_messages"), list)
                                          for c in data)


def _chatgpt_part(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        kind = part.get("content_type", "")
        if "image" in kind:
            return "[image]"
        if kind == "audio_transcription":
            return text_of(part.get("text"))
    return ""


def _chatgpt_text(message: dict) -> str:
    content = message.get("content")
    if not isinstance(content, dict):
        return ""
    kind = content.get("content_type")
    if kind in ("text", "multimodal_text"):
        parts = content.get("parts")
        if isinstance(parts, list):
            return "\n".join(p for p in (_chatgpt_part(x) for x in parts) if p).strip()
    return ""


def _chatgpt_path(conv: dict) -> list[dict]:
    """The messages of the branch the user last saw, oldest first: from ``current_node`` up to the root."""
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict):
        return []
    node_id = conv.get("current_node")
    if node_id not in mapping:  # older exports: the newest leaf
        leaves = [k for k, n in mapping.items() if isinstance(n, dict) and not n.get("children")]
        node_id = max(leaves, key=lambda k: _msg_time(mapping[k]), default=None)
    path: list[dict] = []
    seen: set[str] = set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            break
        if isinstance(node.get("message"), dict):
            path.append(node["message"])
        node_id = node.get("parent")
    path.reverse()
    return path


def _msg_time(node: Any) -> float:
    msg = node.get("message") if isinstance(node, dict) else None
    t = msg.get("create_time") if isinstance(msg, dict) else None
    return float(t) if isinstance(t, (int, float)) and not isinstance(t, bool) else 0.0


def _visible(message: dict) -> bool:
    author = message.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    meta = message.get("metadata") if isinstance(message.get("metadata"), dict) else {}
    return role in ROLE_SOURCE and not meta.get("is_visually_hidden_from_conversation")


def chatgpt_turns(conv: dict) -> list[dict[str, Any]]:
    turns = []
    for msg in _chatgpt_path(conv):
        if not _visible(msg):
            continue
        text = _chatgpt_text(msg)
        if text:
            turns.append({"id": str(msg.get("id") or len(turns)), "role": msg["author"]["role"], "text": text,
                          "at": epoch_time(msg.get("create_time"))})
    return turns


def _chatgpt_conversation(conv: dict) -> dict[str, Any]:
    cid = conv.get("conversation_id") or conv.get("id")
    return {"id": str(cid) if cid else None, "title": text_of(conv.get("title")).strip(),
            "created": epoch_time(conv.get("create_time")), "updated": epoch_time(conv.get("update_time")),
            "model": text_of(conv.get("default_model_slug")) or None, "turns": chatgpt_turns(conv)}


# -- Claude -------------------------------------------------------------------------------------------


def _claude_text(msg: dict) -> str:
    blocks = msg.get("content")
    texts: list[str] = []
    if isinstance(blocks, list):
        texts = [text_of(b.get("text")) for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    text = "\n\n".join(t for t in texts if t.strip()) or text_of(msg.get("text"))
    names = [text_of(f.get("file_name")) for key in ("attachments", "files") for f in (msg.get(key) or [])
             if isinstance(f, dict) and text_of(f.get("file_name"))]
    marks = "\n".join(f"[file: {n}]" for n in dict.fromkeys(names))
    return "\n\n".join(x for x in (text.strip(), marks) if x)


def _claude_conversation(conv: dict) -> dict[str, Any]:
    turns = []
    for n, msg in enumerate(conv.get("chat_messages") or []):
        if not isinstance(msg, dict):
            continue
        role = {"human": "user", "assistant": "assistant"}.get(msg.get("sender"))
        text = _claude_text(msg)
        if role and text:
            turns.append({"id": str(msg.get("uuid") or n), "role": role, "text": text,
                          "at": iso_time(msg.get("created_at"))})
    cid = conv.get("uuid")
    return {"id": str(cid) if cid else None, "title": text_of(conv.get("name")).strip(),
            "created": iso_time(conv.get("created_at")), "updated": iso_time(conv.get("updated_at")),
            "model": text_of(conv.get("model")) or None, "turns": turns}


# -- both ---------------------------------------------------------------------------------------------


def read_export(data: list, fmt: str, path: str) -> Source:
    """The conversations of a ChatGPT (``fmt="chatgpt"``) or Claude (``"claude"``) export as items."""
    parse = _chatgpt_conversation if fmt == "chatgpt" else _claude_conversation
    items: list[SourceItem] = []
    problems: list[dict[str, str]] = []
    keys: set[str] = set()
    for n, conv in enumerate(data, start=1):
        where = f"conversation {n}"
        if not isinstance(conv, dict):
            problems.append({"where": where, "reason": "is not a conversation object"})
            continue
        try:
            parsed = parse(conv)
        except (TypeError, ValueError, KeyError, RecursionError) as exc:
            problems.append({"where": where, "reason": f"could not be read ({type(exc).__name__})"})
            continue
        if not parsed["turns"]:
            problems.append({"where": f"{where} ({parsed['title'] or 'untitled'})",
                             "reason": "has no user or assistant text"})
            continue
        key = parsed["id"] or _anonymous_key(parsed)
        if key in keys:
            problems.append({"where": where, "reason": f"repeats conversation {key}"})
            continue
        keys.add(key)
        first = parsed["turns"][0]
        title = parsed["title"] or short_title(first["text"], "Untitled conversation")
        created = parsed["created"] or first["at"]
        items.append(SourceItem(
            key=key, title=title, kind="conversation", chars=sum(len(t["text"]) for t in parsed["turns"]),
            created_at=created, updated_at=parsed["updated"] or parsed["turns"][-1]["at"] or created,
            messages=len(parsed["turns"]), where=where, payload=parsed))
    label = "ChatGPT" if fmt == "chatgpt" else "Claude"
    return Source(format=fmt, path=path, items=items, problems=problems, modes=("memory", "turns"),
                  to_memories=lambda item, options: _memories(fmt, label, path, item, options),
                  default_category="summaries")


def _anonymous_key(parsed: dict) -> str:
    """A key for a conversation without an id: its title, time and first message."""
    first = parsed["turns"][0]["text"]
    when = format_dt(parsed["created"]) if parsed["created"] else ""
    return "sha256:" + hashlib.sha256(f"{parsed['title']}\0{when}\0{first}".encode()).hexdigest()[:24]


def transcript(turns: list[dict[str, Any]]) -> str:
    return "\n\n".join(f"**{ROLE_LABEL[t['role']]}:** {t['text']}" for t in turns)


def _memories(fmt: str, label: str, path: str, item: SourceItem, options: ImportOptions) -> list[dict[str, Any]]:
    parsed = item.payload
    session = f"{fmt}:{item.key}"
    base = {"importer": fmt, "source": path, "conversation": item.key}
    if parsed.get("model"):
        base["model"] = parsed["model"]
    category = options.category or "summaries"
    created = item.created_at
    if options.mode == "turns":
        out = []
        for n, turn in enumerate(parsed["turns"], start=1):
            at = turn["at"] or created
            title = f"{item.title} ({n}/{len(parsed['turns'])}, {ROLE_LABEL[turn['role']].lower()})"
            out.append(memory_fields(
                item_id(fmt, f"{item.key}\0{turn['id']}"), title, turn["text"], category,
                {**base, "message": turn["id"], "turn": n}, session=session, source=ROLE_SOURCE[turn["role"]],
                created=at, updated=at))
        return out
    prov = {**base, "messages": len(parsed["turns"])}
    return [memory_fields(item_id(fmt, item.key), item.title, transcript(parsed["turns"]), category, prov,
                          session=session, created=created, updated=item.updated_at, keywords=[label.lower()])]
