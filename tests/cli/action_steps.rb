# Reads action.yml and prints one step of it as a shell script: its env with
# the ${{ }} expressions the action uses filled in, then its run command.
# Any other expression is an error, so the test follows the action's changes.
# usage: ruby action_steps.rb action.yml STEP_ID   (inputs from INPUT_OVERRIDE_<NAME>)
#        ruby action_steps.rb action.yml --check    (inputs, uses: lines)
require "yaml"
require "shellwords"

action = YAML.safe_load(File.read(ARGV[0]))
steps = action.dig("runs", "steps") or abort "no runs.steps"
abort "not a composite action" unless action.dig("runs", "using") == "composite"

if ARGV[1] == "--check"
  want = %w[path compile-commands baseline fail-level sarif annotations]
  missing = want - action["inputs"].keys
  abort "inputs missing: #{missing.join(", ")}" unless missing.empty?
  steps.each do |s|
    next unless s["uses"]
    abort "step uses #{s["uses"]}: only actions/* and github/* actions" unless s["uses"] =~ %r{\A(actions|github)/[\w.-]+(/[\w.-]+)?@v\d+\z}
  end
  abort "no SARIF upload" unless steps.any? { |s| s["uses"].to_s.start_with?("github/codeql-action/upload-sarif@") }
  abort "no cache keyed by the ref" unless steps.any? { |s| s["uses"].to_s.start_with?("actions/cache@") && s.dig("with", "key").to_s.include?("github.action_ref") }
  puts "ok"
  exit 0
end

step = steps.find { |s| s["id"] == ARGV[1] } or abort "no step #{ARGV[1]}"
outputs = {}
if ENV["GITHUB_OUTPUT"] && File.exist?(ENV["GITHUB_OUTPUT"])
  File.foreach(ENV["GITHUB_OUTPUT"]) { |l| k, v = l.chomp.split("=", 2); outputs[k] = v if v }
end
eval_expr = lambda do |text|
  text.to_s.gsub(/\$\{\{\s*(.*?)\s*\}\}/) do
    e = Regexp.last_match(1)
    case e
    when /\Ainputs\.([\w-]+)\z/
      name = Regexp.last_match(1)
      env = "INPUT_OVERRIDE_" + name.upcase.tr("-", "_")
      ENV.key?(env) ? ENV[env] : action.dig("inputs", name, "default").to_s
    when "github.action_path" then ENV.fetch("GITHUB_ACTION_PATH")
    when "runner.temp" then ENV.fetch("RUNNER_TEMP")
    when /\Asteps\.lint\.outputs\.([\w-]+)\z/ then outputs[Regexp.last_match(1)].to_s
    else abort "unknown expression in step #{ARGV[1]}: #{e}"
    end
  end
end
(step["env"] || {}).each { |k, v| puts "export #{k}=#{Shellwords.escape(eval_expr.call(v))}" }
puts eval_expr.call(step["run"])
