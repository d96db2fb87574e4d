"""Content in and out: importers for markdown, plain text, PDF and this app's JSON/JSONL exports, and export.

How a document becomes memories (see README "Import and export"):

- A markdown file that is already a memory of this app (frontmatter with an ``id``) and every record of a
  JSON/JSONL export is *restored*: same id, content and fields, provenance included.
- Any other file is a *document*. A short one becomes one memory. A long one (more than ``PART_CHARS``
  characters, or a PDF of several page groups) becomes a parent memory (the document as a whole: its title,
  an outline of its parts and its opening) and one child memory per part (a section of a markdown file, an
  outline section or a group of pages of a PDF). The relation is recorded in ``provenance``: the parent lists
  its ``parts`` (child ids), each child names its ``parent`` and its ``part`` number.
- Every document memory records where it came from in ``provenance``: ``source`` (absolute path),
  ``importer``, ``imported_at``, and ``pages`` or ``section`` when it is one part of the file.
"""

from memory_curator.core.ingest.report import FileResult, ImportReport

__all__ = ["FileResult", "ImportReport"]
