# Builds the nogvl-lint binary when the gem is installed: checks for what the
# build needs (a C compiler, cmake, pkg-config, libclang's headers, jansson,
# libyaml, xxhash) and stops with the packages to install when something is
# missing; then writes a Makefile that runs cmake on the sources shipped in
# the gem and installs the binary where RubyGems collects it.
require "mkmf"
require "rbconfig"
require "shellwords"
require "etc"

ROOT = File.expand_path("../../..", __dir__)

def missing(what, debian, others = nil)
  msg = "nogvl-lint: #{what} not found; install #{debian} (Debian, Ubuntu)"
  msg += " or #{others}" if others
  abort msg
end

cc = (ENV["CC"] || RbConfig::CONFIG["CC"] || "cc").shellsplit.first
missing("a C compiler (#{cc})", "build-essential", "your system's C compiler (gcc or clang)") unless cc && find_executable(cc)
missing("cmake", "cmake") unless find_executable("cmake")
missing("make", "make") unless find_executable(ENV["MAKE"] || "make")
missing("pkg-config", "pkg-config") unless find_executable("pkg-config")

# libclang's headers: LLVM 14 to 19 (NOGVL_LINT_LLVM_PREFIXES: the prefixes to look in instead)
prefixes = if ENV["NOGVL_LINT_LLVM_PREFIXES"]
  ENV["NOGVL_LINT_LLVM_PREFIXES"].split(":")
else
  19.downto(14).map { |v| "/usr/lib/llvm-#{v}" } + ["/usr/local/opt/llvm", "/opt/homebrew/opt/llvm", "/usr/local", "/usr"]
end
llvm = prefixes.find { |p| File.exist?(File.join(p, "include", "clang-c", "Index.h")) }
missing("libclang's headers (clang-c/Index.h, LLVM 14 or newer)", "libclang-dev") unless llvm

need = { "jansson" => "libjansson-dev", "yaml-0.1" => "libyaml-dev", "libxxhash" => "libxxhash-dev" }
absent = need.reject { |mod, _| system("pkg-config", "--exists", mod) }
missing(absent.keys.join(", "), absent.values.join(" ")) unless absent.empty?

llvm_config = File.join(llvm, "bin", "llvm-config")
cmake_args = ["-S", ROOT, "-B", "build", "-DCMAKE_BUILD_TYPE=Release", "-DNOGVL_TESTS=OFF", "-DCMAKE_C_COMPILER=#{cc}"]
cmake_args << "-DLLVM_CONFIG=#{llvm_config}" if File.executable?(llvm_config)
dest = File.join(RbConfig::CONFIG["sitearchdir"], "nogvl_lint", "bin")
jobs = [Etc.nprocessors, 1].max

File.write("Makefile", <<~MAKE)
  # written by extconf.rb: builds nogvl-lint with cmake
  all:
  \tcmake #{cmake_args.shelljoin}
  \tcmake --build build --target nogvl-lint -j #{jobs}

  install: all
  \tmkdir -p #{dest.shellescape}
  \tcp build/nogvl-lint #{dest.shellescape}/nogvl-lint
  \trm -rf build

  clean:
  \trm -rf build

  .PHONY: all install clean
MAKE
