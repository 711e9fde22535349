require "rake"
require "rake/tasklib"
require "shellwords"
require "nogvl_lint"

module NogvlLint
  # Rake tasks running nogvl-lint, modelled on RuboCop::RakeTask:
  #
  #   require "nogvl_lint/rake_task"
  #   NogvlLint::RakeTask.new                 # rake nogvl, rake nogvl:fix
  #   NogvlLint::RakeTask.new(:gvl) do |t|    # rake gvl, rake gvl:fix
  #     t.paths = ["ext/mygem"]
  #     t.options = ["--fail-level", "error", "--cache", "tmp/nogvl-cache"]
  #     t.fail_on_error = false
  #   end
  #
  # `name` runs `nogvl-lint OPTIONS PATHS`; `name:fix` adds --fix (applies the
  # RB_NOGVL_OFFLOAD_SAFE patches, then reports what remains). A finding at or
  # above the fail level (exit status 1) or an incomplete run (3) fails the
  # task unless fail_on_error is false; a usage or configuration error (2)
  # always does.
  class RakeTask < ::Rake::TaskLib
    attr_accessor :name, :paths, :options, :fail_on_error, :verbose, :binary

    def initialize(name = :nogvl, *args, &task_block)
      super()
      @name = name
      @paths = ["ext"]
      @options = []
      @fail_on_error = true
      @verbose = true
      @binary = nil
      desc "Check GVL releases with nogvl-lint" unless ::Rake.application.last_description
      task(name, *args) do |_, task_args|
        RakeFileUtils.verbose(verbose) do
          yield(*[self, task_args].slice(0, task_block.arity)) if task_block
          run_cli([])
        end
      end
      namespace(name) do
        desc "Apply nogvl-lint's fixes (RB_NOGVL_OFFLOAD_SAFE patches), then check"
        task(:fix, *args) do |_, task_args|
          RakeFileUtils.verbose(verbose) do
            yield(*[self, task_args].slice(0, task_block.arity)) if task_block
            run_cli(["--fix"])
          end
        end
      end
    end

    private

    def run_cli(extra)
      cmd = [binary || NogvlLint.executable, *extra, *Array(options).map(&:to_s), *Array(paths).map(&:to_s)]
      puts "Running nogvl-lint: #{cmd.shelljoin}" if verbose
      system(*cmd)
      status = $?.exitstatus
      return if status.zero?
      abort("nogvl-lint could not run (exit status #{status.inspect})") if status.nil? || status == 2 || status > 3
      abort("nogvl-lint failed (exit status #{status})") if fail_on_error
    end
  end
end
