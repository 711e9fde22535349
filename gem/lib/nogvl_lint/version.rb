module NogvlLint
  VERSION = "0.1.0" # the same as project(VERSION) in CMakeLists.txt (the gem test checks it)
end
