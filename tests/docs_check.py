#!/usr/bin/python3
"""The README and docs/ against the programs they describe.

    docs_check.py SOURCE_DIR BUILD_DIR

1. docs/programs.md holds each program's current --help (docs/update_help.sh, run on a
   copy, changes nothing);
2. every command line in a code block that runs seq2seq_train, vit_train, lm_train,
   checkpoint_eval or translate_server uses only options that program's --help lists;
3. every relative link resolves to a file, and a link's #anchor to a heading of it (GitHub's
   rules: lowercase, punctuation dropped, spaces to hyphens, -1, -2 for repeats).
Prints one line per problem and exits 1 if there is any.
"""
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PROGRAMS = ("seq2seq_train", "vit_train", "lm_train", "checkpoint_eval", "translate_server", "compare_runs")
# checkpoint_eval's subcommands, each with its own options.
EVAL_VERBS = ("report", "translate", "classify", "generate", "score", "average", "import", "export")
LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def markdown_files(source):
    return [source / "README.md"] + sorted((source / "docs").glob("*.md"))


def slug(heading):
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()  # a link's text
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path):
    seen, out = {}, set()
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
        if in_code or not re.match(r"#{1,6} ", line):
            continue
        base = slug(line.lstrip("#"))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def code_blocks(text):
    """The lines of each fenced code block outside the --help blocks, continuations joined."""
    lines, in_code, in_help, current = [], False, False, ""
    for line in text.splitlines():
        if line.startswith("<!-- help:"):
            in_help = True
        elif line.startswith("<!-- /help:"):
            in_help = False
        elif line.lstrip().startswith("```"):
            in_code = not in_code
        elif in_code and not in_help:
            current += line.rstrip("\\").rstrip() + " " if line.rstrip().endswith("\\") else line
            if not line.rstrip().endswith("\\"):
                lines.append(current)
                current = ""
    return lines


def help_options(build):
    options = {}
    for command in list(PROGRAMS) + [f"checkpoint_eval {verb}" for verb in EVAL_VERBS]:
        program, *verb = command.split()
        text = subprocess.run([str(build / "apps" / program), *verb, "--help"], capture_output=True,
                              text=True, check=True).stdout
        options[command] = set(re.findall(r"(--[a-z0-9][a-z0-9-]*)", text))
    return options


def check_commands(path, options, problems):
    for line in code_blocks(path.read_text(encoding="utf-8")):
        words = line.split()
        for i, word in enumerate(words):
            program = word.rsplit("/", 1)[-1]
            if program not in PROGRAMS:
                continue
            args = words[i + 1:]
            if program == "checkpoint_eval" and args and args[0] in EVAL_VERBS:
                program, args = f"{program} {args[0]}", args[1:]
            for arg in args:
                if arg in ("|", "&&", ";", "||") or arg[0] in "<>#" or arg.startswith("2>"):
                    break
                flag = arg.split("=", 1)[0]
                if re.fullmatch(r"--[a-z0-9][a-z0-9-]*", flag) and flag not in options[program]:
                    problems.append(f"{path.name}: {program} has no option {flag}: {line.strip()}")


def check_links(path, problems):
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    for match in LINK.finditer(text):
        target = match.group(1) or match.group(2)
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto: not checked here (no network)
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            problems.append(f"{path.name}: link to {target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            problems.append(f"{path.name}: link to {target}: no heading #{anchor} in {linked.name}")


def check_help_blocks(source, build, problems):
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "programs.md"
        shutil.copy(source / "docs" / "programs.md", copy)
        run = subprocess.run(["bash", str(source / "docs" / "update_help.sh"), str(build), str(copy)],
                             capture_output=True, text=True)
        if run.returncode != 0:
            problems.append(f"docs/update_help.sh failed: {run.stderr.strip()}")
        elif copy.read_text() != (source / "docs" / "programs.md").read_text():
            problems.append("docs/programs.md: a program's --help changed: run docs/update_help.sh build")


def main():
    source, build = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    problems = []
    check_help_blocks(source, build, problems)
    options = help_options(build)
    files = markdown_files(source)
    for path in files:
        check_commands(path, options, problems)
        check_links(path, problems)
    for problem in problems:
        print(problem)
    print(f"{len(files)} pages checked: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
