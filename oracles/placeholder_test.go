package oracles

import (
	_ "github.com/anthropics/anthropic-sdk-go/v2"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "go.yaml.in/yaml/v3"
	_ "google.golang.org/genai"
)
