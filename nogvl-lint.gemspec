# The nogvl-lint gem: installing it builds the C tool from the sources shipped
# in the gem (cmake, a C compiler, libclang-dev and a few -dev packages;
# gem/ext/nogvl_lint/extconf.rb checks for them), puts `nogvl-lint` on the gem
# bin path and provides NogvlLint::RakeTask. Build with `gem build nogvl-lint.gemspec`.
version = File.read(File.join(__dir__, "CMakeLists.txt"))[/project\(nogvl-lint VERSION ([0-9.]+)/, 1] or
  raise "no version in CMakeLists.txt"

Gem::Specification.new do |s|
  s.name = "nogvl-lint"
  s.version = version
  s.summary = "Static analysis of GVL releases in Ruby C extensions"
  s.description = "Finds every place a Ruby C extension releases the GVL, follows the callbacks through the " \
                  "whole gem and reports what is unsafe there; proves which callbacks can take " \
                  "RB_NOGVL_OFFLOAD_SAFE. Includes a Rake task modelled on RuboCop's."
  s.authors = ["nogvl-lint maintainers"]
  s.license = "MIT"
  s.required_ruby_version = ">= 2.7"
  s.files = Dir.chdir(__dir__) do
    Dir["CMakeLists.txt", "README.md", "src/**/*.{c,h}", "rules/**/*.{c,h,md}", "rules/models/*.yml", "cmake/*.cmake", "scripts/manpage",
        "gem/lib/**/*.rb", "gem/exe/*", "gem/ext/nogvl_lint/extconf.rb"].sort
  end
  s.require_paths = ["gem/lib"]
  s.bindir = "gem/exe"
  s.executables = ["nogvl-lint"]
  s.extensions = ["gem/ext/nogvl_lint/extconf.rb"]
end
