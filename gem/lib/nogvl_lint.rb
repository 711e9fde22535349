require "nogvl_lint/version"

# nogvl-lint from Ruby: where the binary the gem built is.
module NogvlLint
  # The nogvl-lint binary built when the gem was installed (RubyGems copies
  # it into the gem's lib directory and its extension directory), else the
  # one on PATH.
  def self.executable
    candidates = [File.expand_path("nogvl_lint/bin/nogvl-lint", __dir__)]
    spec = Gem.loaded_specs["nogvl-lint"] if defined?(Gem)
    candidates << File.join(spec.extension_dir, "nogvl_lint", "bin", "nogvl-lint") if spec
    candidates.find { |c| File.executable?(c) } || "nogvl-lint"
  end
end
