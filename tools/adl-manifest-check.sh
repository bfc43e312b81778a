#!/usr/bin/env bash
# ADL's own SCORM 2004 package checker, the command-line ManifestTester of ADL's SCORM 2004 4th Edition Test
# Suite (github.com/adlnet/SCORM-2004-4ed-Test-Suite, Apache-2.0), run headless on Linux with OpenJDK 17. It is
# not part of npm test (CI cannot fetch ADL's repository); tests/node/shipping.test.mjs encodes the rules it
# applied to our zips. With a checkout of that repository:
#   tools/adl-manifest-check.sh ~/SCORM-2004-4ed-Test-Suite dist-packages/qkv-lesson-scorm2004.zip
# Exits 0 when the zip passes every checkpoint. (The suite checks SCORM 2004 only: a 1.2 zip fails its first
# namespace check by design.)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 <SCORM-2004-4ed-Test-Suite checkout> <SCORM 2004 zip>" >&2; exit 2; }
suite=$(realpath "$1")/software_development
zip=$(realpath "$2")
command -v javac >/dev/null || { echo "javac is missing: apt-get install openjdk-17-jdk-headless" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

lib=$suite/lib
classpath=$work/classes:$lib/saxon8.jar:$lib/jdom.jar:$lib/jaxen-1.1.1.jar:$lib/xercesImpl.jar:$lib/xalan.jar:$lib/ant.jar
# The validator and what it uses (XMLTransform, a log formatter, does not compile against today's JDK and is unused).
find "$suite/src/org/adl/validator" "$suite/src/org/adl/parsers/dom" "$suite/src/org/adl/util" -name '*.java' \
  ! -path '*/xmltransform/*' >"$work/sources"
# -source/-target rather than --release: one debug formatter reads a sun.* class that --release hides.
javac -nowarn -Xlint:-options -encoding ISO-8859-1 -source 8 -target 8 -d "$work/classes" -cp "$classpath" \
  -sourcepath "$suite/src" @"$work/sources" 2>"$work/javac.log" || { cat "$work/javac.log" >&2; exit 1; }
parsers=org/adl/validator/packagechecker/parsers
mkdir -p "$work/classes/$parsers" "$work/classes/org/adl/util" "$work/classes/org/adl/validator/util"
cp -r "$suite/src/org/adl/validator/properties" "$work/classes/org/adl/validator/"
cp -r "$suite/src/$parsers/xsd" "$suite/src/$parsers/schematron" "$work/classes/$parsers/"
cp -r "$suite/resources/org/adl/util/resources" "$work/classes/org/adl/util/"
cp -r "$suite/resources/org/adl/validator/util/resources" "$work/classes/org/adl/validator/util/"

# Its Xerces (2002) implements a draft of DOM Load and Save whose interfaces the JDK's java.xml module lacks;
# classes of that package on the class path are ignored, so the draft-only ones are patched into the module.
mkdir -p "$work/dom-ls" && (cd "$work/dom-ls" && unzip -q "$lib/xercesImpl.jar" 'org/w3c/dom/ls/*' &&
  rm org/w3c/dom/ls/{DOMImplementationLS,LSLoadEvent,LSProgressEvent}.class)

# ManifestTester takes a file's name after its last backslash (it was written for Windows paths).
mkdir -p "$work/in\\zip" && cp "$zip" "$work/in\\zip/"
report=$(java --patch-module "java.xml=$work/dom-ls" -cp "$classpath" org.adl.validator.ManifestTester "$work/in\\zip/$(basename "$zip")")
echo "$report"
grep -q 'The Manifest Test Subject Passed All Checkpoints' <<<"$report"
