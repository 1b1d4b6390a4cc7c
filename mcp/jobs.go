package mcp

// jobDoc is the answer of a long tool whose work outlasted the call's
// bound: the work goes on, and job_wait returns its result.
type jobDoc struct {
	Job   string `json:"job" jsonschema:"the job id: give it to job_wait"`
	Tool  string `json:"tool" jsonschema:"the tool the job runs"`
	State string `json:"state" jsonschema:"running, done or failed"`
	Note  string `json:"note" jsonschema:"what to do next"`
}
