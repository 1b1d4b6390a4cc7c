package fakemodel

// customToolCall streams an OpenAI Responses custom tool call (a freeform
// string input, as codex's apply_patch takes it) and returns the item.
func customToolCall(ev func(string, map[string]any) bool, index int, tool *Tool) map[string]any {
	input, _ := tool.Input.(string)
	id := newID("ctc")
	item := map[string]any{"id": id, "type": "custom_tool_call", "status": "in_progress", "call_id": newID("call"), "name": tool.Name, "input": ""}
	ev("response.output_item.added", map[string]any{"output_index": index, "item": item})
	ev("response.custom_tool_call_input.delta", map[string]any{"item_id": id, "output_index": index, "delta": input})
	ev("response.custom_tool_call_input.done", map[string]any{"item_id": id, "output_index": index, "input": input})
	done := map[string]any{}
	for k, v := range item {
		done[k] = v
	}
	done["status"], done["input"] = "completed", input
	ev("response.output_item.done", map[string]any{"output_index": index, "item": done})
	return done
}

// Patch is a reply calling codex's apply_patch with patch.
func Patch(patch string) Reply {
	return Reply{Tool: &Tool{Name: "apply_patch", Input: patch, Custom: true}}
}
