package redactcorpus

import "strings"

// Groups of docs/sanitize.md, in order.
const (
	GroupAI        = "AI model providers"
	GroupCloud     = "Cloud and infrastructure"
	GroupCode      = "Code hosting, CI and package registries"
	GroupSaaS      = "Developer and business services"
	GroupPayments  = "Payments and commerce"
	GroupMessaging = "Messaging, e-mail and webhooks"
	GroupKeys      = "Private keys"
	GroupGeneric   = "Credentials by structure or name"
)

// Shapes returns every kind of secret in the corpus, grouped as in
// docs/sanitize.md.
func Shapes() []Shape {
	var s []Shape
	add := func(x ...Shape) { s = append(s, x...) }

	// --- AI model providers.
	openai := func(kind, rule, prefix string) Shape {
		return tokenParts(GroupAI, kind, rule, func(g *G) (string, []string) {
			a, b := g.S(B64URL, 74), g.S(B64URL, 74)
			return prefix + a + "T3BlbkFJ" + b, []string{a, b}
		})
	}
	anthropic := func(kind, rule, prefix string) Shape {
		return tokenParts(GroupAI, kind, rule, func(g *G) (string, []string) {
			b := g.S(B64URL, 93)
			return prefix + b + "AA", []string{b}
		})
	}
	add(
		openai("OpenAI project API key", "gitleaks openai-api-key", "sk-proj-"),
		openai("OpenAI service account key", "gitleaks openai-api-key", "sk-svcacct-"),
		openai("OpenAI admin key", "trufflehog openaiadmin", "sk-admin-"),
		tokenParts(GroupAI, "OpenAI user key (legacy)", "gitleaks openai-api-key", func(g *G) (string, []string) {
			a, b := g.S(Alnum, 20), g.S(Alnum, 20)
			return "sk-" + a + "T3BlbkFJ" + b, []string{a, b}
		}),
		anthropic("Anthropic API key", "gitleaks anthropic-api-key", "sk-ant-api03-"),
		anthropic("Anthropic admin key", "gitleaks anthropic-admin-api-key", "sk-ant-admin01-"),
		anthropic("Anthropic OAuth token", "trufflehog anthropic", "sk-ant-oat01-"),
		token(GroupAI, "Google AI (Gemini) API key", "trufflehog googlegemini", "AIzaSy", B64URL, 33),
		token(GroupAI, "Groq API key", "trufflehog groq", "gsk_", Alnum, 52),
		token(GroupAI, "xAI API key", "trufflehog xai", "xai-", Alnum, 80),
		token(GroupAI, "OpenRouter API key", "trufflehog openrouter", "sk-or-v1-", Hex, 64),
		token(GroupAI, "DeepSeek API key", "trufflehog deepseek", "sk-", LowerDigit, 32),
		token(GroupAI, "Perplexity API key", "gitleaks perplexity-api-key", "pplx-", Alnum, 48),
		token(GroupAI, "Hugging Face access token", "gitleaks huggingface-access-token", "hf_", Letters, 34),
		token(GroupAI, "Hugging Face organization token", "gitleaks huggingface-organization-api-token", "api_org_", Letters, 34),
		token(GroupAI, "Replicate API token", "trufflehog replicate", "r8_", Alnum, 37),
		tokenParts(GroupAI, "Pinecone API key", "trufflehog pinecone", func(g *G) (string, []string) {
			a, b := g.S(Alnum, 6), g.S(Alnum, 63)
			return "pcsk_" + a + "_" + b, []string{b}
		}),
		tokenParts(GroupAI, "LangSmith personal token", "trufflehog langsmith", func(g *G) (string, []string) {
			a, b := g.S(Hex, 32), g.S(Hex, 10)
			return "lsv2_pt_" + a + "_" + b, []string{a}
		}),
		tokenParts(GroupAI, "LangSmith service key", "trufflehog langsmith", func(g *G) (string, []string) {
			a, b := g.S(Hex, 32), g.S(Hex, 10)
			return "lsv2_sk_" + a + "_" + b, []string{a}
		}),
		tokenParts(GroupAI, "Langfuse secret key", "trufflehog langfuse", func(g *G) (string, []string) {
			u := g.UUID()
			return "sk-lf-" + u, []string{u}
		}),
		token(GroupAI, "NVIDIA API key", "trufflehog nvapi", "nvapi-", B64URL, 64),
		token(GroupAI, "Tavily API key", "public key format tvly-", "tvly-dev-", Alnum, 32),
		token(GroupAI, "Cerebras API key", "public key format csk-", "csk-", LowerDigit, 48),
		token(GroupAI, "Fireworks AI API key", "public key format fw_", "fw_", Alnum, 24),
		named(GroupAI, "Mistral API key", "env MISTRAL_API_KEY", "MISTRAL_API_KEY={v}", Alnum, 32),
		named(GroupAI, "Cohere API key", "gitleaks cohere-api-token", `CO_API_KEY="{v}"`, Alnum, 40),
		named(GroupAI, "ElevenLabs API key", "trufflehog elevenlabs", "xi-api-key: {v}", Hex, 32),
		named(GroupAI, "Azure OpenAI api-key header", "trufflehog azure_openai", "api-key: {v}", Hex, 32),
		named(GroupAI, "Weights & Biases API key", "trufflehog weightsandbiases", "WANDB_API_KEY={v}", Hex, 40),
	)

	// --- Cloud and infrastructure.
	aws := func(kind, prefix string) Shape {
		return token(GroupCloud, kind, "gitleaks aws-access-token", prefix, Base32AWS, 16)
	}
	add(
		aws("AWS access key id", "AKIA"),
		aws("AWS temporary access key id", "ASIA"),
		aws("AWS STS service bearer key id", "ABIA"),
		aws("AWS CloudFront key id", "ACCA"),
		named(GroupCloud, "AWS secret access key", "aws-cli configuration", "aws_secret_access_key = {v}", B64, 40),
		named(GroupCloud, "AWS session token", "aws-cli configuration", "AWS_SESSION_TOKEN={v}", B64, 180),
		token(GroupCloud, "Amazon Bedrock API key (long-lived)", "gitleaks aws-amazon-bedrock-api-key-long-lived", "ABSK", B64, 132),
		token(GroupCloud, "Amazon Bedrock API key (short-lived)", "gitleaks aws-amazon-bedrock-api-key-short-lived", "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t", B64, 160),
		token(GroupCloud, "Google OAuth access token", "trufflehog googleoauth2", "ya29.", B64URL, 120),
		token(GroupCloud, "Google OAuth refresh token", "Google OAuth 2.0 refresh token 1//", "1//0", B64URL, 100),
		token(GroupCloud, "Google OAuth client secret", "Google OAuth client secret GOCSPX-", "GOCSPX-", B64URL, 28),
		tokenParts(GroupCloud, "Azure Storage account key", "trufflehog azure_storage", func(g *G) (string, []string) {
			k := g.B64(64)
			return "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + k + ";EndpointSuffix=core.windows.net", []string{strings.TrimRight(k, "=")}
		}),
		tokenParts(GroupCloud, "Azure Service Bus shared access key", "Azure connection string SharedAccessKey", func(g *G) (string, []string) {
			k := g.B64(32)
			return "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=" + k, []string{strings.TrimRight(k, "=")}
		}),
		tokenParts(GroupCloud, "Azure Cosmos DB key", "trufflehog azure_cosmosdb", func(g *G) (string, []string) {
			k := g.S(Alnum, 86)
			return "AccountEndpoint=https://acme.documents.azure.com:443/;AccountKey=" + k + "==;", []string{k}
		}),
		tokenParts(GroupCloud, "Azure App Configuration secret", "trufflehog azureappconfigconnectionstring", func(g *G) (string, []string) {
			k := g.B64(32)
			return "Endpoint=https://acme.azconfig.io;Id=ab12-cd-s0:AbCdEf;Secret=" + k, []string{strings.TrimRight(k, "=")}
		}),
		named(GroupCloud, "Azure API Management subscription key", "trufflehog azureapimanagementsubscriptionkey", "Ocp-Apim-Subscription-Key: {v}", Hex, 32),
		tokenParts(GroupCloud, "Azure AD (Entra) client secret", "gitleaks azure-ad-client-secret", func(g *G) (string, []string) {
			b := g.S(Alnum, 3) + g.S(Digits, 1) + "Q~" + g.S(B64URL+"~.", 34)
			return b, []string{b[6:]}
		}),
		tokenParts(GroupCloud, "Azure SAS token", "trufflehog azuresastoken", func(g *G) (string, []string) {
			sig := g.B64(32)
			return "https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2030-01-01T00:00:00Z&sig=" + strings.ReplaceAll(strings.ReplaceAll(sig, "+", "%2B"), "/", "%2F"), []string{strings.TrimRight(strings.NewReplacer("+", "%2B", "/", "%2F").Replace(sig), "=")}
		}),
		namedValue(GroupCloud, "Azure Container Registry password", "trufflehog azurecontainerregistry", "docker login acme.azurecr.io -u acme -p {v}", func(g *G) string {
			return g.S(B64, 42) + "+ACR" + g.S(Alnum, 6)
		}),
		named(GroupCloud, "Azure DevOps personal access token", "trufflehog azuredevopspersonalaccesstoken", "AZURE_DEVOPS_PAT={v}", LowerDigit, 52),
		named(GroupCloud, "Azure Functions key", "trufflehog azurefunctionkey", "x-functions-key: {v}", B64URL, 54),
		token(GroupCloud, "Alibaba Cloud access key id", "gitleaks alibaba-access-key-id", "LTAI", Alnum, 20),
		named(GroupCloud, "Alibaba Cloud access key secret", "gitleaks alibaba-secret-key", "alibaba_cloud_access_key_secret: {v}", Alnum, 30),
		token(GroupCloud, "Tencent Cloud secret id", "Tencent Cloud SecretId AKID", "AKID", Alnum, 32),
		token(GroupCloud, "Yandex Cloud API key", "gitleaks yandex-api-key", "AQVN", B64URL, 36),
		tokenParts(GroupCloud, "Yandex Cloud IAM token", "gitleaks yandex-access-token", func(g *G) (string, []string) {
			a, b := g.S(B64URL, 40), g.S(B64URL, 86)
			return "t1." + a + "." + b, []string{a, b}
		}),
		named(GroupCloud, "IBM Cloud API key", "trufflehog ibmclouduserkey", "IBM_CLOUD_API_KEY={v}", B64URL, 44),
		token(GroupCloud, "DigitalOcean personal access token", "gitleaks digitalocean-pat", "dop_v1_", Hex, 64),
		token(GroupCloud, "DigitalOcean OAuth token", "gitleaks digitalocean-access-token", "doo_v1_", Hex, 64),
		token(GroupCloud, "DigitalOcean refresh token", "gitleaks digitalocean-refresh-token", "dor_v1_", Hex, 64),
		token(GroupCloud, "Heroku API key (v2)", "gitleaks heroku-api-key-v2", "HRKU-AA", B64URL, 58),
		namedValue(GroupCloud, "Heroku API key", "gitleaks heroku-api-key", "HEROKU_API_KEY={v}", (*G).UUID),
		token(GroupCloud, "Fly.io access token", "gitleaks flyio-access-token", "fo1_", B64URL, 43),
		token(GroupCloud, "Fly.io macaroon", "trufflehog flyio", "FlyV1 fm2_", B64, 520),
		named(GroupCloud, "Vercel token", "trufflehog vercel", "VERCEL_TOKEN={v}", Alnum, 24),
		named(GroupCloud, "Netlify token", "trufflehog netlify", "NETLIFY_AUTH_TOKEN={v}", B64URL, 43),
		token(GroupCloud, "Render API key", "public key format rnd_", "rnd_", Alnum, 32),
		token(GroupCloud, "Supabase access token", "trufflehog supabasetoken", "sbp_", LowerDigit, 40),
		token(GroupCloud, "Supabase secret key", "Supabase API keys sb_secret_", "sb_secret_", B64URL, 31),
		token(GroupCloud, "Cloudflare Origin CA key", "gitleaks cloudflare-origin-ca-key", "v1.0-", Hex, 171),
		named(GroupCloud, "Cloudflare API token", "gitleaks cloudflare-api-key", "CLOUDFLARE_API_TOKEN={v}", B64URL, 40),
		named(GroupCloud, "Cloudflare global API key", "gitleaks cloudflare-global-api-key", "X-Auth-Key: {v}", Hex, 37),
		token(GroupCloud, "Databricks token", "gitleaks databricks-api-token", "dapi", Hex, 32),
		token(GroupCloud, "HashiCorp Vault service token", "gitleaks vault-service-token", "hvs.", B64URL, 95),
		token(GroupCloud, "HashiCorp Vault batch token", "gitleaks vault-batch-token", "hvb.", B64URL, 140),
		tokenParts(GroupCloud, "Terraform Cloud token", "gitleaks hashicorp-tf-api-token", func(g *G) (string, []string) {
			a, b := g.S(Alnum, 14), g.S(Alnum, 67)
			return a + ".atlasv1." + b, []string{a, b}
		}),
		token(GroupCloud, "Pulumi access token", "gitleaks pulumi-api-token", "pul-", Hex, 40),
		token(GroupCloud, "Doppler personal token", "gitleaks doppler-api-token", "dp.pt.", Alnum, 43),
		token(GroupCloud, "Doppler service token", "trufflehog doppler", "dp.st.", Alnum, 44),
		token(GroupCloud, "Doppler CLI token", "trufflehog doppler", "dp.ct.", Alnum, 43),
		token(GroupCloud, "Doppler service account token", "trufflehog doppler", "dp.sa.", Alnum, 43),
		token(GroupCloud, "Doppler SCIM token", "trufflehog doppler", "dp.scim.", Alnum, 43),
		token(GroupCloud, "Tailscale auth key", "trufflehog tailscale", "tskey-auth-", B64URL, 40),
		token(GroupCloud, "Portainer API token", "trufflehog portainertoken", "ptr_", Alnum, 44),
		token(GroupCloud, "Scalingo API token", "gitleaks scalingo-api-token", "tk-us-", B64URL, 48),
		token(GroupCloud, "PlanetScale API token", "gitleaks planetscale-api-token", "pscale_tkn_", B64URL, 43),
		token(GroupCloud, "PlanetScale OAuth token", "gitleaks planetscale-oauth-token", "pscale_oauth_", B64URL, 43),
		token(GroupCloud, "PlanetScale password", "gitleaks planetscale-password", "pscale_pw_", B64URL, 43),
		token(GroupCloud, "ClickHouse Cloud secret key", "gitleaks clickhouse-cloud-api-secret-key", "4b1d", Alnum, 38),
		named(GroupCloud, "Snowflake password", "trufflehog snowflake", "SNOWFLAKE_PASSWORD={v}", Alnum, 24),
		named(GroupCloud, "Vultr API key", "trufflehog vultrapikey", "VULTR_API_KEY={v}", UpperDigit, 36),
	)

	// --- Code hosting, CI and package registries.
	gh := func(kind, rule, prefix string) Shape { return token(GroupCode, kind, rule, prefix, Alnum, 36) }
	gl := func(kind, rule, prefix, alphabet string, n int) Shape {
		return token(GroupCode, kind, rule, prefix, alphabet, n)
	}
	add(
		gh("GitHub personal access token", "gitleaks github-pat", "ghp_"),
		gh("GitHub OAuth token", "gitleaks github-oauth", "gho_"),
		gh("GitHub user-to-server token", "gitleaks github-app-token", "ghu_"),
		gh("GitHub server-to-server token", "gitleaks github-app-token", "ghs_"),
		gh("GitHub refresh token", "gitleaks github-refresh-token", "ghr_"),
		token(GroupCode, "GitHub fine-grained token", "gitleaks github-fine-grained-pat", "github_pat_", Alnum+"_", 82),
		gl("GitLab personal access token", "gitleaks gitlab-pat", "glpat-", B64URL, 20),
		tokenParts(GroupCode, "GitLab routable personal token", "gitleaks gitlab-pat-routable", func(g *G) (string, []string) {
			a, b := g.S(B64URL, 36), g.S(LowerDigit, 7)
			return "glpat-" + a + ".01." + b, []string{a}
		}),
		gl("GitLab deploy token", "gitleaks gitlab-deploy-token", "gldt-", B64URL, 20),
		gl("GitLab runner token", "gitleaks gitlab-runner-authentication-token", "glrt-", B64URL, 20),
		gl("GitLab pipeline trigger token", "gitleaks gitlab-ptt", "glptt-", Hex, 40),
		gl("GitLab CI job token", "gitleaks gitlab-cicd-job-token", "glcbt-", B64URL, 26),
		gl("GitLab feed token", "gitleaks gitlab-feed-token", "glft-", B64URL, 20),
		gl("GitLab incoming mail token", "gitleaks gitlab-incoming-mail-token", "glimt-", B64URL, 25),
		gl("GitLab Kubernetes agent token", "gitleaks gitlab-kubernetes-agent-token", "glagent-", B64URL, 50),
		gl("GitLab OAuth application secret", "gitleaks gitlab-oauth-app-secret", "gloas-", B64URL, 64),
		gl("GitLab SCIM token", "gitleaks gitlab-scim-token", "glsoat-", B64URL, 20),
		gl("GitLab feature flag token", "gitleaks gitlab-feature-flag-client-token", "glffct-", B64URL, 20),
		gl("GitLab runner registration token", "gitleaks gitlab-rrt", "GR1348941", B64URL, 20),
		named(GroupCode, "GitLab session cookie", "gitleaks gitlab-session-cookie", "Cookie: _gitlab_session={v}", LowerDigit, 32),
		token(GroupCode, "Bitbucket app password", "trufflehog bitbucketapppassword", "ATBB", Alnum, 32),
		tokenParts(GroupCode, "Atlassian API token", "trufflehog jiratoken", func(g *G) (string, []string) {
			a, b := g.S(B64URL, 170), g.S(HexUpper, 8)
			return "ATATT3xFfGF0" + a + "=" + b, []string{a}
		}),
		named(GroupCode, "Jira API token (legacy)", "gitleaks atlassian-api-token", "JIRA_API_TOKEN={v}", Alnum, 24),
		token(GroupCode, "npm access token", "gitleaks npm-access-token", "npm_", Alnum, 36),
		token(GroupCode, "PyPI upload token", "gitleaks pypi-upload-token", "pypi-AgEIcHlwaS5vcmc", B64URL, 140),
		token(GroupCode, "RubyGems API key", "gitleaks rubygems-api-token", "rubygems_", Hex, 48),
		token(GroupCode, "NuGet API key", "trufflehog nugetapikey", "oy2", LowerDigit, 43),
		token(GroupCode, "Clojars token", "gitleaks clojars-api-token", "CLOJARS_", LowerDigit, 60),
		token(GroupCode, "Docker Hub personal access token", "trufflehog dockerhub", "dckr_pat_", B64URL, 27),
		token(GroupCode, "Docker Hub organization token", "trufflehog dockerhub", "dckr_oat_", B64URL, 32),
		token(GroupCode, "JFrog Artifactory API key", "gitleaks artifactory-api-key", "AKCp", Alnum, 69),
		token(GroupCode, "JFrog Artifactory reference token", "gitleaks artifactory-reference-token", "cmVmd", Alnum, 59),
		token(GroupCode, "SonarQube user token", "gitleaks sonar-api-token", "squ_", Hex, 40),
		token(GroupCode, "SonarQube project token", "gitleaks sonar-api-token", "sqp_", Hex, 40),
		token(GroupCode, "SonarQube analysis token", "gitleaks sonar-api-token", "sqa_", Hex, 40),
		token(GroupCode, "Sourcegraph access token", "gitleaks sourcegraph-access-token", "sgp_", Hex, 40),
		token(GroupCode, "Sourcegraph Cody token", "trufflehog sourcegraphcody", "slk_", Hex, 64),
		named(GroupCode, "CircleCI token", "trufflehog circleci", "CIRCLE_TOKEN={v}", Hex, 40),
		named(GroupCode, "Buildkite token", "trufflehog buildkite", "BUILDKITE_API_TOKEN={v}", LowerDigit, 40),
		namedValue(GroupCode, "Codecov token", "gitleaks codecov-access-token", "CODECOV_TOKEN={v}", (*G).UUID),
		named(GroupCode, "Travis CI token", "gitleaks travisci-access-token", "travis_api_token: {v}", LowerDigit, 22),
		named(GroupCode, "Drone CI token", "gitleaks droneci-access-token", "DRONE_TOKEN={v}", Alnum, 32),
		namedValue(GroupCode, "Snyk token", "gitleaks snyk-api-token", "SNYK_TOKEN={v}", (*G).UUID),
		token(GroupCloud, "HashiCorp Vault legacy token", "gitleaks vault-service-token", "s.", Alnum, 24),
	)

	// --- Developer and business services.
	add(
		tokenParts(GroupSaaS, "Sentry org token", "gitleaks sentry-org-token", func(g *G) (string, []string) {
			a := g.S(B64, 197)
			return "sntrys_eyJpYXQiO" + a, []string{a}
		}),
		token(GroupSaaS, "Sentry user token", "gitleaks sentry-user-token", "sntryu_", Hex, 64),
		token(GroupSaaS, "Grafana Cloud token", "gitleaks grafana-cloud-api-token", "glc_", B64, 80),
		tokenParts(GroupSaaS, "Grafana service account token", "gitleaks grafana-service-account-token", func(g *G) (string, []string) {
			a, b := g.S(Alnum, 32), g.S(Hex, 8)
			return "glsa_" + a + "_" + b, []string{a}
		}),
		token(GroupSaaS, "Grafana API key (legacy)", "gitleaks grafana-api-key", "eyJrIjoi", Alnum, 80),
		tokenParts(GroupSaaS, "Dynatrace API token", "gitleaks dynatrace-api-token", func(g *G) (string, []string) {
			a, b := g.S(UpperDigit, 24), g.S(UpperDigit, 64)
			return "dt0c01." + a + "." + b, []string{a, b}
		}),
		token(GroupSaaS, "New Relic user API key", "gitleaks new-relic-user-api-key", "NRAK-", UpperDigit, 27),
		token(GroupSaaS, "New Relic insert key", "gitleaks new-relic-insert-key", "NRII-", B64URL, 32),
		token(GroupSaaS, "New Relic browser key", "gitleaks new-relic-browser-api-token", "NRJS-", Hex, 19),
		named(GroupSaaS, "Datadog API key", "gitleaks datadog-access-token", "DD_API_KEY={v}", Hex, 32),
		named(GroupSaaS, "Datadog application key", "trufflehog datadogtoken", "DD-APPLICATION-KEY: {v}", Hex, 40),
		named(GroupSaaS, "Honeycomb API key", "trufflehog honeycomb", "HONEYCOMB_API_KEY={v}", Alnum, 32),
		token(GroupSaaS, "Linear API key", "gitleaks linear-api-key", "lin_api_", Alnum, 40),
		token(GroupSaaS, "Linear OAuth token", "Linear OAuth lin_oauth_", "lin_oauth_", Hex, 64),
		token(GroupSaaS, "Notion integration token (legacy)", "Notion API secret_", "secret_", Alnum, 43),
		tokenParts(GroupSaaS, "Notion integration token", "gitleaks notion-api-token", func(g *G) (string, []string) {
			a, b := g.S(Digits, 11), g.S(Alnum, 35)
			return "ntn_" + a + b, []string{a + b}
		}),
		tokenParts(GroupSaaS, "Airtable personal access token", "gitleaks airtable-personnal-access-token", func(g *G) (string, []string) {
			a, b := g.S(Alnum, 14), g.S(Hex, 64)
			return "pat" + a + "." + b, []string{a, b}
		}),
		token(GroupSaaS, "Figma personal access token", "trufflehog figmapersonalaccesstoken", "figd_", B64URL, 40),
		tokenParts(GroupSaaS, "Postman API key", "gitleaks postman-api-token", func(g *G) (string, []string) {
			a, b := g.S(Hex, 24), g.S(Hex, 34)
			return "PMAK-" + a + "-" + b, []string{a, b}
		}),
		token(GroupSaaS, "Frame.io token", "gitleaks frameio-api-token", "fio-u-", B64URL, 64),
		token(GroupSaaS, "Typeform token", "gitleaks typeform-api-token", "tfp_", B64URL, 59),
		token(GroupSaaS, "ReadMe API key", "gitleaks readme-api-token", "rdme_", LowerDigit, 70),
		token(GroupSaaS, "Adobe client secret", "gitleaks adobe-client-secret", "p8e-", Alnum, 32),
		token(GroupSaaS, "age secret key", "gitleaks age-secret-key", "AGE-SECRET-KEY-1", Bech32Up, 58),
		token(GroupSaaS, "1Password service account token", "gitleaks 1password-service-account-token", "ops_eyJ", B64, 260),
		tokenParts(GroupSaaS, "1Password secret key", "gitleaks 1password-secret-key", func(g *G) (string, []string) {
			p := []string{g.S(UpperDigit, 6), g.S(UpperDigit, 11), g.S(UpperDigit, 5), g.S(UpperDigit, 5), g.S(UpperDigit, 5)}
			return "A3-" + strings.Join(p, "-"), []string{p[1]}
		}),
		token(GroupSaaS, "Infracost API key", "gitleaks infracost-api-token", "ico-", Alnum, 32),
		token(GroupSaaS, "Prefect API key", "gitleaks prefect-api-token", "pnu_", Alnum, 36),
		token(GroupSaaS, "Octopus Deploy API key", "gitleaks octopus-deploy-api-key", "API-", UpperDigit, 26),
		tokenParts(GroupSaaS, "Harness API key", "gitleaks harness-api-key", func(g *G) (string, []string) {
			a, b, c := g.S(B64URL, 22), g.S(Alnum, 24), g.S(Alnum, 20)
			return "pat." + a + "." + b + "." + c, []string{b, c}
		}),
		token(GroupSaaS, "OpenShift user token", "gitleaks openshift-user-token", "sha256~", B64URL, 43),
		token(GroupSaaS, "PostHog personal API key", "trufflehog posthog", "phx_", Alnum, 45),
		tokenParts(GroupSaaS, "ClickUp personal token", "trufflehog clickuppersonaltoken", func(g *G) (string, []string) {
			a, b := g.S(Digits, 8), g.S(UpperDigit, 32)
			return "pk_" + a + "_" + b, []string{b}
		}),
		tokenParts(GroupSaaS, "MaxMind license key", "gitleaks maxmind-license-key", func(g *G) (string, []string) {
			a, b := g.S(Alnum, 6), g.S(Alnum, 29)
			return a + "_" + b + "_mmk", []string{b}
		}),
		tokenParts(GroupSaaS, "Mapbox secret token", "trufflehog mapbox", func(g *G) (string, []string) {
			a, b := g.S(B64URL, 60), g.S(B64URL, 22)
			return "sk.eyJ1IjoiYWNtZSIsImEiOiJ" + a + "." + b, []string{a, b}
		}),
		token(GroupSaaS, "Dropbox short-lived token", "gitleaks dropbox-short-lived-api-token", "sl.", B64URL, 135),
		named(GroupSaaS, "Algolia admin key", "gitleaks algolia-api-key", "ALGOLIA_ADMIN_KEY={v}", LowerDigit, 32),
		named(GroupSaaS, "Contentful delivery token", "gitleaks contentful-delivery-api-token", "CONTENTFUL_DELIVERY_TOKEN={v}", B64URL, 43),
		named(GroupSaaS, "Okta API token", "gitleaks okta-access-token", "Authorization: SSWS {v}", B64URL, 42),
		named(GroupSaaS, "LaunchDarkly access token", "gitleaks launchdarkly-access-token", "LAUNCHDARKLY_ACCESS_TOKEN={v}", B64URL, 40),
		named(GroupSaaS, "Zendesk API token", "gitleaks zendesk-secret-key", "zendesk_api_token: {v}", LowerDigit, 40),
		named(GroupSaaS, "HubSpot private app token", "gitleaks hubspot-api-key", `hubspotApiKey := "{v}"`, HexUpper, 36),
		named(GroupSaaS, "Intercom access token", "gitleaks intercom-api-key", `'intercom_access_token' => '{v}'`, B64URL, 60),
		named(GroupSaaS, "Asana personal access token", "trufflehog asanapersonalaccesstoken", "ASANA_ACCESS_TOKEN={v}", Alnum, 40),
		named(GroupSaaS, "Twitch API token", "gitleaks twitch-api-token", "TWITCH_OAUTH_TOKEN={v}", LowerDigit, 30),
	)

	// --- Payments and commerce.
	add(
		token(GroupPayments, "Stripe live secret key", "gitleaks stripe-access-token", "sk_live_", Alnum, 99),
		token(GroupPayments, "Stripe test secret key", "gitleaks stripe-access-token", "sk_test_", Alnum, 99),
		token(GroupPayments, "Stripe restricted key", "gitleaks stripe-access-token", "rk_live_", Alnum, 99),
		token(GroupPayments, "Stripe webhook signing secret", "Stripe webhook whsec_", "whsec_", Alnum, 32),
		token(GroupPayments, "Shopify access token", "gitleaks shopify-access-token", "shpat_", Hex, 32),
		token(GroupPayments, "Shopify custom app token", "gitleaks shopify-custom-access-token", "shpca_", Hex, 32),
		token(GroupPayments, "Shopify private app token", "gitleaks shopify-private-app-access-token", "shppa_", Hex, 32),
		token(GroupPayments, "Shopify shared secret", "gitleaks shopify-shared-secret", "shpss_", Hex, 32),
		token(GroupPayments, "Square access token", "gitleaks square-access-token", "sq0atp-", B64URL, 22),
		token(GroupPayments, "Square OAuth secret", "trufflehog squareapp", "sq0csp-", B64URL, 43),
		token(GroupPayments, "Square production token", "gitleaks square-access-token", "EAAA", B64URL, 60),
		tokenParts(GroupPayments, "Braintree access token", "Braintree access_token$production$", func(g *G) (string, []string) {
			a, b := g.S(LowerDigit, 16), g.S(Hex, 32)
			return "access_token$production$" + a + "$" + b, []string{b}
		}),
		token(GroupPayments, "Razorpay key id", "trufflehog razorpay", "rzp_live_", Alnum, 14),
		token(GroupPayments, "Paystack secret key", "trufflehog paystack", "sk_live_", Alnum, 40),
		tokenParts(GroupPayments, "Plaid access token", "gitleaks plaid-api-token", func(g *G) (string, []string) {
			u := g.UUID()
			return "access-production-" + u, []string{u}
		}),
		tokenParts(GroupPayments, "Flutterwave secret key", "gitleaks flutterwave-secret-key", func(g *G) (string, []string) {
			a := g.S("abcdefgh"+Digits, 32)
			return "FLWSECK_TEST-" + a + "-X", []string{a}
		}),
		token(GroupPayments, "Flutterwave encryption key", "gitleaks flutterwave-encryption-key", "FLWSECK_TEST", "abcdefgh"+Digits, 12),
		token(GroupPayments, "Shippo API token", "gitleaks shippo-api-token", "shippo_live_", Hex, 40),
		token(GroupPayments, "EasyPost API key", "gitleaks easypost-api-token", "EZAK", Alnum, 54),
		token(GroupPayments, "EasyPost test key", "gitleaks easypost-test-api-token", "EZTK", Alnum, 54),
		token(GroupPayments, "Duffel API token", "gitleaks duffel-api-token", "duffel_live_", B64URL, 43),
		named(GroupPayments, "Coinbase API secret", "gitleaks coinbase-access-token", "COINBASE_API_SECRET={v}", B64URL, 64),
		named(GroupPayments, "Kraken private key", "gitleaks kraken-access-token", "kraken_private_key: {v}", B64, 88),
		named(GroupPayments, "Lob API key", "gitleaks lob-api-key", "LOB_API_KEY=live_{v}", Hex, 35),
	)

	// --- Messaging, e-mail and webhooks.
	slack := func(kind, rule, prefix string, n int) Shape {
		return tokenParts(GroupMessaging, kind, rule, func(g *G) (string, []string) {
			a, b := g.S(Digits, 12), g.S(Alnum, n)
			return prefix + a + "-" + g.S(Digits, 13) + "-" + b, []string{b}
		})
	}
	webhook := func(kind, rule, base string, build func(g *G) string) Shape {
		return tokenParts(GroupMessaging, kind, rule, func(g *G) (string, []string) {
			p := build(g)
			return base + p, []string{p}
		})
	}
	add(
		slack("Slack bot token", "gitleaks slack-bot-token", "xoxb-", 24),
		slack("Slack user token", "gitleaks slack-user-token", "xoxp-", 32),
		slack("Slack workspace token (legacy)", "gitleaks slack-legacy-workspace-token", "xoxa-", 32),
		slack("Slack refresh token", "gitleaks slack-legacy-workspace-token", "xoxr-", 32),
		token(GroupMessaging, "Slack app-level token", "gitleaks slack-app-token", "xapp-1-A0123456789-1234567890123-", Hex, 64),
		token(GroupMessaging, "Slack configuration access token", "gitleaks slack-config-access-token", "xoxe.xoxp-1-", UpperDigit, 164),
		token(GroupMessaging, "Slack configuration refresh token", "gitleaks slack-config-refresh-token", "xoxe-1-", UpperDigit, 146),
		webhook("Slack incoming webhook URL", "gitleaks slack-webhook-url", "https://hooks.slack.com/services/", func(g *G) string {
			return "T" + g.S(UpperDigit, 10) + "/B" + g.S(UpperDigit, 10) + "/" + g.S(Alnum, 24)
		}),
		webhook("Slack workflow webhook URL", "gitleaks slack-webhook-url", "https://hooks.slack.com/workflows/", func(g *G) string {
			return "T" + g.S(UpperDigit, 10) + "/A" + g.S(UpperDigit, 10) + "/" + g.S(Digits, 18) + "/" + g.S(Alnum, 24)
		}),
		webhook("Slack workflow trigger URL", "gitleaks slack-webhook-url", "https://hooks.slack.com/triggers/", func(g *G) string {
			return "T" + g.S(UpperDigit, 10) + "/" + g.S(Digits, 13) + "/" + g.S(Hex, 32)
		}),
		webhook("Discord webhook URL", "trufflehog discordwebhook", "https://discord.com/api/webhooks/", func(g *G) string {
			return g.S(Digits, 19) + "/" + g.S(B64URL, 68)
		}),
		webhook("Discord webhook URL (discordapp.com)", "trufflehog discordwebhook", "https://discordapp.com/api/webhooks/", func(g *G) string {
			return g.S(Digits, 18) + "/" + g.S(B64URL, 68)
		}),
		tokenParts(GroupMessaging, "Discord bot token", "trufflehog discordbottoken", func(g *G) (string, []string) {
			a, b, c := "M"+g.S(B64URL, 23), g.S(B64URL, 6), g.S(B64URL, 38)
			return a + "." + b + "." + c, []string{a, c}
		}),
		webhook("Microsoft Teams webhook URL", "gitleaks microsoft-teams-webhook", "https://acme.webhook.office.com/webhookb2/", func(g *G) string {
			return g.UUID() + "@" + g.UUID() + "/IncomingWebhook/" + g.S(Hex, 32) + "/" + g.UUID()
		}),
		webhook("Office 365 connector webhook URL", "gitleaks microsoft-teams-webhook", "https://outlook.office.com/webhook/", func(g *G) string {
			return g.UUID() + "@" + g.UUID() + "/IncomingWebhook/" + g.S(Hex, 32) + "/" + g.UUID()
		}),
		webhook("Zapier webhook URL", "trufflehog zapierwebhook", "https://hooks.zapier.com/hooks/catch/", func(g *G) string {
			return g.S(Digits, 8) + "/" + g.S(LowerDigit, 7) + "/"
		}),
		webhook("Tines webhook URL", "trufflehog tineswebhook", "https://acme.tines.com/webhook/", func(g *G) string {
			return g.S(Hex, 32) + "/" + g.S(Hex, 32)
		}),
		tokenParts(GroupMessaging, "Telegram bot token", "trufflehog telegrambottoken", func(g *G) (string, []string) {
			a, b := g.S(Digits, 10), g.S(B64URL, 33)
			return a + ":AA" + b, []string{b}
		}),
		tokenParts(GroupMessaging, "SendGrid API key", "gitleaks sendgrid-api-token", func(g *G) (string, []string) {
			a, b := g.S(B64URL, 22), g.S(B64URL, 43)
			return "SG." + a + "." + b, []string{a, b}
		}),
		token(GroupMessaging, "Mailgun private API key", "gitleaks mailgun-private-api-token", "key-", Hex, 32),
		tokenParts(GroupMessaging, "Mailgun signing key", "gitleaks mailgun-signing-key", func(g *G) (string, []string) {
			a, b, c := g.S(Hex, 32), g.S(Hex, 8), g.S(Hex, 8)
			return a + "-" + b + "-" + c, []string{a}
		}),
		tokenParts(GroupMessaging, "Mailchimp API key", "gitleaks mailchimp-api-key", func(g *G) (string, []string) {
			a := g.S(Hex, 32)
			return a + "-us21", []string{a}
		}),
		tokenParts(GroupMessaging, "Brevo (Sendinblue) API key", "gitleaks sendinblue-api-token", func(g *G) (string, []string) {
			a, b := g.S(Hex, 64), g.S(Alnum, 16)
			return "xkeysib-" + a + "-" + b, []string{a, b}
		}),
		tokenParts(GroupMessaging, "Brevo SMTP key", "Brevo SMTP key xsmtpsib-", func(g *G) (string, []string) {
			a, b := g.S(Hex, 64), g.S(Alnum, 16)
			return "xsmtpsib-" + a + "-" + b, []string{a, b}
		}),
		token(GroupMessaging, "Twilio API key", "gitleaks twilio-api-key", "SK", Hex, 32),
		named(GroupMessaging, "Twilio auth token", "trufflehog twilio", "TWILIO_AUTH_TOKEN={v}", Hex, 32),
		namedValue(GroupMessaging, "Postmark server token", "trufflehog postmark", "X-Postmark-Server-Token: {v}", (*G).UUID),
		named(GroupMessaging, "Mattermost access token", "gitleaks mattermost-access-token", "MATTERMOST_TOKEN={v}", LowerDigit, 26),
		named(GroupMessaging, "MessageBird API key", "gitleaks messagebird-api-token", "MESSAGEBIRD_ACCESS_KEY={v}", Alnum, 25),
		tokenParts(GroupMessaging, "Twitter bearer token", "gitleaks twitter-bearer-token", func(g *G) (string, []string) {
			a := g.S(Alnum+"%", 90)
			return "AAAAAAAAAAAAAAAAAAAAA" + a, []string{a}
		}),
		named(GroupMessaging, "Twitter API secret", "gitleaks twitter-api-secret", "TWITTER_API_SECRET={v}", Alnum, 50),
		token(GroupMessaging, "Facebook page access token", "gitleaks facebook-page-access-token", "EAAC", Alnum, 120),
		named(GroupMessaging, "Facebook app secret", "gitleaks facebook-secret", "FACEBOOK_APP_SECRET={v}", Hex, 32),
	)

	// --- Private keys.
	add(
		pem(GroupKeys, "RSA private key (PKCS #1)", "gitleaks private-key", "RSA PRIVATE KEY"),
		pem(GroupKeys, "Private key (PKCS #8)", "gitleaks private-key", "PRIVATE KEY"),
		pem(GroupKeys, "Encrypted private key (PKCS #8)", "gitleaks private-key", "ENCRYPTED PRIVATE KEY"),
		pem(GroupKeys, "EC private key", "gitleaks private-key", "EC PRIVATE KEY"),
		pem(GroupKeys, "DSA private key", "gitleaks private-key", "DSA PRIVATE KEY"),
		pem(GroupKeys, "OpenSSH private key", "gitleaks private-key", "OPENSSH PRIVATE KEY"),
		pem(GroupKeys, "Encrypted RSA private key (PEM headers)", "gitleaks private-key", "RSA PRIVATE KEY", "Proc-Type: 4,ENCRYPTED", "DEK-Info: AES-128-CBC,3F17F5316E2BAC89"),
		pem(GroupKeys, "PGP private key block", "gitleaks private-key", "PGP PRIVATE KEY BLOCK"),
		tokenParts(GroupKeys, "Google service account key file", "trufflehog gcp", func(g *G) (string, []string) {
			lines := pemLines(g, 8)
			body := strings.Join(lines, `\n`)
			return `{"type": "service_account", "project_id": "acme-demo", "private_key_id": "` + g.S(Hex, 40) +
				`", "private_key": "-----BEGIN PRIVATE KEY-----\n` + body + `\n-----END PRIVATE KEY-----\n", "client_email": "bot@acme-demo.iam.gserviceaccount.com"}`, lines
		}),
		tokenParts(GroupKeys, "PuTTY private key", "PuTTY user key file format (Private-Lines)", func(g *G) (string, []string) {
			lines := pemLines(g, 3)
			return "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 1\nAAAAC3NzaC1lZDI1NTE5AAAAIE\nPrivate-Lines: 3\n" +
				strings.Join(lines, "\n") + "\nPrivate-MAC: " + g.S(Hex, 64), lines
		}),
	)

	// --- Credentials by structure or by name.
	jwt := func(kind, rule, header string, segments int) Shape {
		return tokenParts(GroupGeneric, kind, rule, func(g *G) (string, []string) {
			parts := []string{b64url(header)}
			var secret []string
			for i := 1; i < segments; i++ {
				p := g.S(B64URL, 43+20*i)
				if i == 1 {
					p = b64url(`{"sub":"` + g.S(Alnum, 24) + `","iat":1700000000}`)
				}
				parts = append(parts, p)
				secret = append(secret, p)
			}
			return strings.Join(parts, "."), secret
		})
	}
	add(
		jwt("JSON Web Token", "gitleaks jwt", `{"alg":"HS256","typ":"JWT"}`, 3),
		jwt("JSON Web Encryption token", "RFC 7516, 3.1 (compact serialization)", `{"alg":"RSA-OAEP","enc":"A256GCM"}`, 5),
		named(GroupGeneric, "Bearer credential", "RFC 6750, 2.1", "Authorization: Bearer {v}", B64URL+".~+/", 48),
		namedValue(GroupGeneric, "Basic credentials", "RFC 7617, 2", "Authorization: Basic {v}", func(g *G) string {
			return base64Std("svc-user:" + g.S(Alnum, 20))
		}),
		named(GroupGeneric, "Token scheme credential", "Authorization: Token", "Authorization: Token {v}", Hex, 40),
		named(GroupGeneric, "Password in URL userinfo", "RFC 3986, 3.2.1", "postgres://app:{v}@db.internal:5432/app", Alnum, 24),
		named(GroupGeneric, "MongoDB connection string", "trufflehog mongodb", "mongodb+srv://app:{v}@cluster0.example.mongodb.net/db", Alnum, 24),
		named(GroupGeneric, "Redis URL password", "trufflehog redis", "redis://:{v}@cache.internal:6379/0", Alnum, 32),
		named(GroupGeneric, "AMQP URL password", "trufflehog uri", "amqps://app:{v}@mq.internal/vhost", Alnum, 24),
		named(GroupGeneric, "FTP URL password", "trufflehog ftp", "ftp://deploy:{v}@files.internal/upload", Alnum, 20),
		named(GroupGeneric, "LDAP bind password", "trufflehog ldap", `bind_password: "{v}"`, Alnum, 20),
		named(GroupGeneric, "JDBC URL password", "trufflehog jdbc", "jdbc:postgresql://db.internal:5432/app?user=app&password={v}", Alnum, 20),
		named(GroupGeneric, "SQL Server connection string", "trufflehog sqlserver", "Server=tcp:db.internal,1433;Database=app;User Id=app;Password={v};", Alnum, 20),
		named(GroupGeneric, "Sidekiq Enterprise credentials", "gitleaks sidekiq-sensitive-url", "https://0f1e2d3c:{v}@enterprise.contribsys.com/", Hex, 8),
		named(GroupGeneric, "curl user and password", "gitleaks curl-auth-user", "curl -u deploy:{v} https://example.test/api", Alnum, 20),
		named(GroupGeneric, "netrc password", ".netrc (machine, login, password)", "machine api.example.test login deploy password {v}", Alnum, 20),
		named(GroupGeneric, "Secret after a secret-naming word", "trufflehog azure_entra (secret|password)", "authentication failed with secret {v}", B64, 40),
		named(GroupGeneric, "Password after the word password", ".netrc / prose", "connection refused for password {v}", Alnum, 16),
		named(GroupGeneric, "Key after the words API key", "prose", "the API key {v} is not valid", Alnum, 32),
		named(GroupGeneric, "Token after the word token", "prose", "rejected token {v} for this project", Alnum, 40),
		named(GroupGeneric, "Secret-named environment variable", "gitleaks generic-api-key", "MY_SERVICE_SECRET={v}", Alnum, 32),
		named(GroupGeneric, "Secret-named JSON member", "gitleaks generic-api-key", `{"client_secret": "{v}"}`, B64URL, 40),
		named(GroupGeneric, "Secret-named YAML key", "gitleaks generic-api-key", "  api_token: {v}", Alnum, 32),
		named(GroupGeneric, "Secret-named Go assignment", "gitleaks generic-api-key", `apiKey := "{v}"`, Alnum, 32),
		named(GroupGeneric, "Secret-named Ruby or PHP hash entry", "gitleaks generic-api-key", `'secret_key' => '{v}'`, Alnum, 32),
		named(GroupGeneric, "Secret in a query parameter", "gitleaks generic-api-key", "https://api.example.test/v1/search?q=x&access_token={v}", Alnum, 32),
		named(GroupGeneric, "Session cookie", "RFC 6265, 4.2", "Cookie: sessionid={v}; theme=dark", LowerDigit, 32),
		named(GroupGeneric, "Set-Cookie session", "RFC 6265, 4.1", "Set-Cookie: session={v}; Path=/; HttpOnly", B64URL, 40),
		named(GroupGeneric, "S3 presigned URL signature", "AWS Signature Version 4 (X-Amz-Signature)", "https://b.s3.amazonaws.com/f?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature={v}", Hex, 64),
		named(GroupGeneric, "Google signed URL signature", "Google Cloud Storage V4 signing (X-Goog-Signature)", "https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature={v}", Hex, 128),
		named(GroupGeneric, "Private key in an environment variable", "gitleaks generic-api-key", "SIGNING_PRIVATE_KEY={v}", B64, 64),
		named(GroupGeneric, "Passphrase", "gitleaks generic-api-key", "GPG_PASSPHRASE={v}", Alnum, 24),
		named(GroupGeneric, "Kubernetes secret data", "gitleaks kubernetes-secret-yaml", "kind: Secret\ndata:\n  password: {v}", B64, 32),
		named(GroupGeneric, "NuGet config password", "gitleaks nuget-config-password", `<add key="ClearTextPassword" value="{v}" />`, Alnum, 20),
		named(GroupGeneric, "Terraform password variable", "gitleaks hashicorp-tf-password", `administrator_login_password = "{v}"`, Alnum, 20),
	)
	return s
}
