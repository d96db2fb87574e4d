"""Text handling shared by the index and the queries: tokens, languages, chunks."""
