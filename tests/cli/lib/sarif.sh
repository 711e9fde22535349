# Finds and runs the official SARIF validator (npm @microsoft/sarif-multitool,
# installed by scripts/setup --test-tools under build/sarif-tools, or on PATH,
# or named by NOGVL_SARIF_MULTITOOL). The npm wrapper passes its arguments
# through a shell, so the native binary is run directly.
SARIF_MULTITOOL=""
sarif_validator_found() {
	for c in "${NOGVL_SARIF_MULTITOOL:-}" \
		"$SRC/build/sarif-tools/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool" \
		"$(command -v sarif-multitool 2>/dev/null)"; do
		if [ -n "$c" ] && [ -x "$c" ]; then
			SARIF_MULTITOOL=$c
			return 0
		fi
	done
	return 1
}
# sarif_validate FILE: the SARIF schema and GitHub's ingestion rules, no errors
sarif_validate() {
	DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 \
		"$SARIF_MULTITOOL" validate --rule-kind "Sarif;Gh" "$1" >validate.txt 2>&1
	vrc=$?
	if [ "$vrc" -ne 0 ] || ! grep -q "Analysis completed successfully" validate.txt || grep -q ": error " validate.txt; then
		cat validate.txt
		return 1
	fi
	return 0
}
