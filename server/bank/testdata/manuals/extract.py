#!/usr/bin/env python3
"""Extract the CNAB 240 position tables of the banks' manuals into the TSVs
beside this script, which TestLayoutsMatchManuals holds fincom's layouts to.

The manuals are the banks' PDFs as published (a copy lives in
github.com/eduardokum/laravel-boleto, manuais/): turn each into text with
`pdftotext -layout` and give the three text files:

    extract.py itau240.txt bradesco240.txt santander240.txt

Rows pdftotext splits across lines are lost by the expressions; they are
added by hand, marked 'by hand', after reading the page.
"""
import json, re, sys

ORDER = ['file_header', 'batch_header', 'P', 'Q', 'R', 'T', 'U', 'batch_trailer', 'file_trailer']


def itau(path):
    txt = open(path).read().split('\n')
    sections = [('file_header', 'REGISTRO HEADER DE ARQUIVO'), ('batch_header', 'REGISTRO HEADER DE LOTE'), ('P', 'SEGMENTO P -'),
                ('Q', 'SEGMENTO Q -'), ('R', 'SEGMENTO R -'), ('T', 'SEGMENTO T -'), ('U', 'SEGMENTO U -'),
                ('batch_trailer', 'REGISTRO TRAILER DE LOTE'), ('file_trailer', 'REGISTRO TRAILER DE ARQUIVO')]
    cur, rows = None, []
    pat = re.compile(r'\b(\d{3})\s+(\d{3})\s+([9X])\s*\(')
    for i, l in enumerate(txt):
        for name, marker in sections:
            if marker in l and ('TAMANHO DO REGISTRO' in l or 'OBRIGAT' in l or 'OPCIONAL' in l):
                cur = name
        if 'SEGMENTO Y' in l:
            cur = None
        m = pat.search(l)
        if m and cur:
            rows.append((cur, int(m.group(1)), int(m.group(2)), m.group(3), re.sub(r'\s+', ' ', l[:m.start()]).strip(), 'line %d' % (i + 1)))
    return rows


def santander(path):
    txt = open(path).read().split('\n')
    ranges = [('file_header', 15, 41), ('batch_header', 41, 74), ('P', 74, 143), ('Q', 143, 182), ('R', 182, 217), ('T', 402, 449),
              ('U', 449, 492), ('batch_trailer', 301, 316), ('file_trailer', 316, 337)]
    pat = re.compile(r'^\s*(\d{3})\s*[-–]\s*(\d{3})\s+(.*?)\s*\b([NA])\s+(\d{3})\b')
    rows = []
    for name, a, b in ranges:
        for i in range(a, b):
            m = pat.match(txt[i])
            if m:
                rows.append((name, int(m.group(1)), int(m.group(2)), '9' if m.group(4) == 'N' else 'X', m.group(3).strip(), 'line %d' % (i + 1)))
    return rows


def bradesco(path):
    txt = open(path).read().split('\n')
    ranges = [('file_header', 307, 360), ('file_trailer', 360, 400), ('batch_header', 529, 597), ('P', 597, 704), ('Q', 704, 767),
              ('R', 767, 838), ('T', 1031, 1103), ('U', 1103, 1167), ('batch_trailer', 1167, 1230)]
    pat = re.compile(r'\s(\d{1,3})\s+(\d{1,3})\s+(\d{1,3})\s+(?:-|\d)?\s*(Num|Alfa)\b')
    rows = []
    for name, a, b in ranges:
        for i in range(a, b):
            m = pat.search(txt[i])
            if m:
                s, e = int(m.group(1)), int(m.group(2))
                if (s, e) == (1, 13):
                    e = 3  # pdftotext reads "1 3 3" as "1 13 3"
                rows.append((name, s, e, '9' if m.group(4) == 'Num' else 'X', re.sub(r'\s+', ' ', txt[i][:m.start()]).strip(), 'line %d' % (i + 1)))
    return rows


if __name__ == '__main__':
    for name, fn, path in zip(['itau', 'bradesco', 'santander'], [itau, bradesco, santander], sys.argv[1:4]):
        for r in sorted(fn(path), key=lambda r: (ORDER.index(r[0]), r[1])):
            print(name, *r, sep='\t')
