#!/usr/bin/env python3
"""The include-layer check (issue 27): every #include in src/ and include/napkin/ points down.

Each file belongs to the layer its folder names (src/<layer>/..., include/napkin/<layer>/...).
A file may include its own layer and the layers ALLOWED lists for it; an include of any other
napkin layer is an arrow pointing up (or sideways) and fails the check. The core layers (the
napkin_core library) also never include I/O, JSON or CLI headers, and CMakeLists.txt builds
napkin_core from core folders only and napkin_io from the readers and renderers only. A file
in src/ past MAX_LINES states at its top why it is one file (a line with "one file because").
src/README.md draws the same table.

  check.py ROOT            check the tree at ROOT; exit 1 and one line per violation
  check.py --self-test ROOT
                           copy ROOT's src/ and include/ into a scratch tree, add one upward
                           include, and require the check to fail on it (and pass without it)
"""
import os
import re
import shutil
import sys
import tempfile

# Who may include whom. Order is bottom-up; a layer never lists one above it.
ALLOWED = {
    'ground': set(),
    'kernel': {'ground'},
    'report': {'ground'},
    'model': {'ground'},
    'memory': {'ground', 'model'},
    'engines': {'ground', 'model', 'memory'},
    'plans': {'ground', 'model', 'memory', 'engines', 'kernel'},
    'specs': {'ground', 'model', 'memory', 'engines', 'plans', 'kernel'},
    'cli': {'ground', 'model', 'memory', 'engines', 'plans', 'kernel', 'specs', 'report'},
}
CORE = {'ground', 'kernel', 'model', 'memory', 'engines', 'plans'}
IO = {'specs', 'report'}
# Headers the core never includes (STYLE.md: no I/O, no JSON, no CLI parsing).
CORE_FORBIDDEN = re.compile(r'^(iostream|fstream|nlohmann/.*|CLI/.*)$')
# Generated at configure time (cmake/version.h.in): a constant, part of the ground.
GENERATED = {'napkin/version.h': 'ground'}
# One file, one job: a longer file says why within its first 10 lines ("... one file because ...").
MAX_LINES = 800

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def layer_of(path):
    parts = path.split('/')
    if parts[0] == 'src' and len(parts) > 2:
        return parts[1]
    if parts[:2] == ['include', 'napkin'] and len(parts) > 3:
        return parts[2]
    return None


def sources(root):
    out = []
    for top in ('src', 'include'):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith(('.h', '.cpp')):
                    out.append(os.path.relpath(os.path.join(dirpath, n), root))
    return sorted(out)


def check(root):
    errors = []
    for path in sources(root):
        layer = layer_of(path)
        if layer is None:
            errors.append(f'{path}: not in a layer folder (src/<layer>/ or include/napkin/<layer>/)')
            continue
        if layer not in ALLOWED:
            errors.append(f'{path}: unknown layer folder "{layer}" (add it to tests/layers/check.py and src/README.md)')
            continue
        with open(os.path.join(root, path), encoding='utf-8') as f:
            lines = f.read().splitlines()
        if path.startswith('src/') and len(lines) > MAX_LINES and \
                not any('one file because' in l for l in lines[:10]):
            errors.append(f'{path}: {len(lines)} lines, over {MAX_LINES}, and no reason at its top ("one file '
                          'because ..."): split it by job, or say why not')
        for no, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(2)
            if m.group(1) == '"' and os.path.exists(os.path.join(root, os.path.dirname(path), target)):
                target_layer = layer_of(os.path.normpath(os.path.join(os.path.dirname(path), target)))
            elif target in GENERATED:
                target_layer = GENERATED[target]
            elif target.startswith('napkin/'):
                parts = target.split('/')
                target_layer = parts[1] if len(parts) > 2 else None
                if target_layer is None or not os.path.exists(os.path.join(root, 'include', target)):
                    errors.append(f'{path}:{no}: includes {target}, which is not a header under include/napkin/<layer>/')
                    continue
            else:
                if layer in CORE and CORE_FORBIDDEN.match(target):
                    errors.append(f'{path}:{no}: the core layer {layer} includes <{target}>; the core does no I/O, '
                                  'JSON or CLI parsing (napkin_core)')
                continue
            if target_layer == layer:
                continue
            if target_layer not in ALLOWED.get(layer, set()):
                may = ', '.join(sorted(ALLOWED[layer])) or 'nothing outside itself'
                errors.append(f'{path}:{no}: {layer} includes {m.group(2)} ({target_layer}): an arrow up or '
                              f'sideways; {layer} may include {may}')
    errors += check_libraries(root)
    return errors


def check_libraries(root):
    """napkin_core is built from the core folders, napkin_io from specs/ and report/."""
    errors = []
    cmake = os.path.join(root, 'CMakeLists.txt')
    if not os.path.exists(cmake):
        return errors
    text = open(cmake, encoding='utf-8').read()
    for lib, layers in (('napkin_core', CORE), ('napkin_io', IO)):
        m = re.search(r'add_library\(' + lib + r' STATIC(.*?)\)', text, re.S)
        if not m:
            errors.append(f'CMakeLists.txt: no add_library({lib} STATIC ...)')
            continue
        for src in re.findall(r'\bsrc/\S+\.cpp', m.group(1)):
            if layer_of(src) not in layers:
                errors.append(f'CMakeLists.txt: {lib} builds {src}, which is in layer {layer_of(src)}; '
                              f'{lib} takes {", ".join(sorted(layers))}')
    return errors


def self_test(root):
    with tempfile.TemporaryDirectory() as tmp:
        for top in ('src', 'include'):
            shutil.copytree(os.path.join(root, top), os.path.join(tmp, top))
        shutil.copy(os.path.join(root, 'CMakeLists.txt'), tmp)
        clean = check(tmp)
        if clean:
            print('self-test: the copied tree should pass but fails:\n' + '\n'.join(clean))
            return 1
        victim = os.path.join(tmp, 'src', 'model', 'params.cpp')
        with open(victim, 'a', encoding='utf-8') as f:
            f.write('#include "napkin/plans/serve.h"\n')
        caught = check(tmp)
        want = 'src/model/params.cpp'
        if not any(e.startswith(want) and '(plans): an arrow up' in e for e in caught):
            print('self-test: an upward include (model -> plans) was not caught; got:\n' + '\n'.join(caught))
            return 1
        print('self-test: the upward include was caught:\n  ' + '\n  '.join(caught))
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == '--self-test':
        return self_test(argv[2])
    if len(argv) != 2:
        print(__doc__)
        return 2
    errors = check(argv[1])
    for e in errors:
        print(e)
    if errors:
        print(f'include layers: {len(errors)} violation(s); the layers and their arrows: src/README.md')
        return 1
    print(f'include layers: {len(sources(argv[1]))} files, every include points down')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
