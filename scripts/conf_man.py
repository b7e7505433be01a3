#!/usr/bin/env python3
"""conf_man.py < docs/config.md > nicd.conf.5.scd

nicd.conf(5) in scdoc, made from docs/config.md so that the reference and
the manual page say the same (make builds it; tests/integration/
test_docs.py checks that every directive nicd reads is in it).  The
Markdown it reads is the subset config.md uses: headings, paragraphs,
bullet lists, code spans and blocks, links, bold, and the directive
tables (| directive | default or nginx | meaning |), each row becoming a
directive in bold with its meaning indented below it."""

import re
import sys


def escape(text):
    """Markdown inline text into scdoc: code spans and bold in bold, links
    as their text, scdoc's own marks escaped elsewhere"""
    out = []
    pos = 0
    for m in re.finditer(r"`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\([^)]*\)",
                         text):
        out.append(plain(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append("*" + plain(m.group(1)) + "*")
        elif m.group(2) is not None:
            out.append("*" + plain(m.group(2)) + "*")
        else:
            out.append(plain(m.group(3)))
        pos = m.end()
    out.append(plain(text[pos:]))
    return "".join(out)


def plain(text):
    text = text.replace("\\", "\\\\")
    text = text.replace("*", "\\*").replace("_", "\\_")
    return text.replace("\\|", "|")


def line_start(text):
    """scdoc reads a line starting with [, | or : as a table"""
    return "\\" + text if text[:1] in "[|:" else text


def cells(row):
    # split on | not escaped as \|
    parts = re.split(r"(?<!\\)\|", row.strip())[1:-1]
    return [p.strip() for p in parts]


def main():
    md = sys.stdin.read().splitlines()
    out = ["nicd.conf(5)", "", "# NAME", "",
           "nicd.conf - the configuration of nicd(8), in nginx's syntax", "",
           "# DESCRIPTION", ""]
    i = 0
    header = None
    in_code = False
    while i < len(md):
        line = md[i]
        if line.startswith("```"):
            in_code = not in_code
            out.append("```")
            i += 1
            continue
        if in_code:
            out.append(line)
            i += 1
            continue
        if line.startswith("# "):
            i += 1  # the title: the NAME says it
            continue
        if line.startswith("## "):
            out += ["", "# " + line[3:].upper(), ""]
            i += 1
            continue
        if line.startswith("### "):
            out += ["", "## " + line[4:], ""]
            i += 1
            continue
        if line.startswith("    ") and (i == 0 or md[i - 1].strip() == ""):
            # an indented code block
            block = []
            while i < len(md) and (md[i].startswith("    ")
                                   or md[i].strip() == ""):
                block.append(md[i][4:])
                i += 1
            while block and block[-1] == "":
                block.pop()
            out += ["```"] + block + ["```", ""]
            continue
        if line.startswith("|"):
            row = cells(line)
            if header is None:
                header = [c.lower() for c in row]
                i += 2  # and its --- line
                continue
            if len(header) == 2:
                name, second, meaning = row[0], "", row[1]
            else:
                name, second, meaning = row[0], row[1], " ".join(row[2:])
            out.append(line_start(escape(name.replace("\\|", "|"))))
            what = escape(meaning)
            if second and second not in ("-", "same"):
                label = "Default" if header[1] == "default" else "nginx"
                what = (what + " " if what else "") \
                    + "%s: %s." % (label, escape(second))
            out.append("\t" + what)
            out.append("")
            i += 1
            if i >= len(md) or not md[i].startswith("|"):
                header = None
            continue
        if line.startswith("- "):
            item = line[2:]
            i += 1
            while i < len(md) and md[i].startswith("  ") \
                    and not md[i].startswith("- "):
                item += " " + md[i].strip()
                i += 1
            out.append("- " + escape(item))
            continue
        if line.strip() == "":
            out.append("")
            i += 1
            continue
        # a paragraph: its lines joined
        para = line
        i += 1
        while i < len(md) and md[i].strip() != "" \
                and not md[i].startswith(("|", "#", "- ", "```")):
            para += " " + md[i].strip()
            i += 1
        out.append(line_start(escape(para)))
        out.append("")
    out += ["", "# SEE ALSO", "", "*nicd*(8), *nginx*(8)", ""]
    text = "\n".join(out)
    text = re.sub(r"\n{3,}", "\n\n", text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
