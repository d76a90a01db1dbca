# Writes held-out-text.js, the one King James text part four's lessons read (shared keys and values, rotary
# positions, sliding windows and attention sinks) and pass to their PyTorch programs: four held-out chapters of
# attnlab's split (every 20th chapter of Genesis 1 … Revelation 22 is held out, cpp/train/kjv_corpus.cpp; neither
# model trained on them), consecutive in the held-out text and laid out as it is (one verse a line, references
# dropped, a blank line after each chapter): Judges 9, 1 Samuel 4, 1 Samuel 24 and 2 Samuel 13. Debian's
# bible-kjv-text prints the Bible:
#   bible -f "Gen1:1-Rev22:21" | python3 held-out-text.py > held-out-text.js
import json
import sys

chapters = []
for line in sys.stdin:
    line = line.rstrip("\n")
    if not line:
        continue
    reference, verse = line.split(" ", 1)
    chapter = reference[:reference.index(":")]
    if not chapters or chapters[-1][0] != chapter:
        chapters.append((chapter, []))
    chapters[-1][1].append(verse)
heldout = [c for i, c in enumerate(chapters) if (i + 1) % 20 == 0]
first = [name for name, _ in heldout].index("Jdgs9")
assert [name for name, _ in heldout[first:first + 4]] == ["Jdgs9", "1Sm4", "1Sm24", "2Sm13"]
text = "".join("".join(v + "\n" for v in verses) + "\n" for _, verses in heldout[first:first + 4])
sys.stdout.write("// Made by held-out-text.py from Debian's bible-kjv-text (public domain): the held-out chapters Judges 9,\n"
                 "// 1 Samuel 4, 1 Samuel 24 and 2 Samuel 13, one verse a line, a blank line after each chapter. Part four's\n"
                 "// lessons read this text alone (each as much of it as it needs, from the start) and give their programs the same.\n"
                 "// Its chapters: the book (with its number: 1 Samuel) and the chapter, as numbers the page writes out.\n"
                 "export const CHAPTERS = [{ book: 'Judges', chapter: 9 }, { number: 1, book: 'Samuel', chapter: 4 },\n"
                 "  { number: 1, book: 'Samuel', chapter: 24 }, { number: 2, book: 'Samuel', chapter: 13 }];\n"
                 "export const HELD_OUT = [\n" + "".join(f"  {json.dumps(line, ensure_ascii=False)},\n" for line in text.split("\n"))
                 + "].join('\\n');\n"
                 "// The first `count` chapters, each with the blank line after it.\n"
                 "export const firstChapters = (count) => HELD_OUT.split('\\n\\n').slice(0, count).map((c) => `${c}\\n\\n`).join('');\n")
