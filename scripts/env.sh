# Sourced by the scripts in this folder: picks the JDK and puts the project's local tools on PATH.
# A JDK of 21 or later is preferred because the starter's virtual-thread mode is only tested there;
# the code itself is compiled for Java 17.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -z "${JAVA_HOME:-}" ]; then
  for jdk in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-21-jdk-amd64; do
    if [ -x "$jdk/bin/java" ]; then export JAVA_HOME="$jdk"; break; fi
  done
fi
[ -n "${JAVA_HOME:-}" ] && export PATH="$JAVA_HOME/bin:$PATH"
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
# Go (the deployment checks download Istio's CRDs with it), where the machine installs it outside PATH.
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then export PATH="$PATH:/usr/local/go/bin"; fi
export PATHFENCE_ROOT="$root"
