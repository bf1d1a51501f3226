"""What the per-language NER checks (en.py, et.py) share: ta's tokens placed in the text."""


def align(text, tokens):
    """Character spans of ta's tokens in the original text, in order (None where a token is not found)."""
    spans, at = [], 0
    for tok in tokens:
        k = text.find(tok, at)
        if k < 0:
            spans.append(None)
            continue
        spans.append((k, k + len(tok)))
        at = k + len(tok)
    return spans
