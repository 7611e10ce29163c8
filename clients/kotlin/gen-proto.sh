#!/usr/bin/env bash
# Generates the SDK's Java messages, grpc-java stubs and grpc-kotlin
# coroutine stubs from the .proto files, with the protoc and plugins that
# Maven fetched into TOOLS (pom.xml pins their versions). Run by the build
# (generate-sources): gen-proto.sh TOOLS OUT RUNTIME PROTO_ROOT..., RUNTIME
# "lite" for the SDK's artifact, "full" for the conformance runner's build
# (conformance/pom.xml), whose protobuf JSON needs descriptors.
set -euo pipefail
tools=$1 out=$2 runtime=$3
shift 3
case $runtime in
  lite) java_opt=lite: ;;
  full) java_opt= ;;
  *) echo "gen-proto.sh: RUNTIME is lite or full, not '$runtime'" >&2; exit 2 ;;
esac
bin=$tools/bin
chmod +x "$bin/protoc.exe" "$bin/protoc-gen-grpc-java.exe"
# protoc runs plugins as executables: the Kotlin one is a jar.
cat > "$bin/protoc-gen-grpc-kotlin" <<LAUNCHER
#!/bin/sh
exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" -jar "$bin/protoc-gen-grpc-kotlin.jar" "\$@"
LAUNCHER
chmod +x "$bin/protoc-gen-grpc-kotlin"
rm -rf "$out"
mkdir -p "$out/java" "$out/kotlin"
includes=(-I"$tools/include")
files=()
for root in "$@"; do
  includes+=(-I"$root")
  while IFS= read -r f; do files+=("$f"); done < <(find "$root" -name '*.proto' | sort)
done
"$bin/protoc.exe" "${includes[@]}" \
  --plugin=protoc-gen-grpc-java="$bin/protoc-gen-grpc-java.exe" \
  --plugin=protoc-gen-grpc-kotlin="$bin/protoc-gen-grpc-kotlin" \
  --java_out="$java_opt$out/java" \
  --grpc-java_out="$java_opt$out/java" \
  --grpc-kotlin_out="$out/kotlin" \
  "${files[@]}"
