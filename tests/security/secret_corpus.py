"""The corpus the secret guard is measured on: credential shapes it must refuse and mask,
and ordinary rules it must let through.

Every credential here is a realistic fake, made up for these tests: none was ever issued.
Each shape is the text as it would sit in a rule, and the part of it that must never be
written to the telemetry log.

The ordinary rules are the 576 real lessons of bench/corpus/agentsmesh (their rules,
rationales and triggers; see its NOTICE.md), this repository's own lessons, and rules
written here to sit as close to a credential as honest rules do: they name `password`,
`-p`, `curl -u`, `mysql -p`, tokens and keys without holding one.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]
BENCH_LESSONS = ROOT / "bench" / "corpus" / "agentsmesh" / "lessons.json"
OWN_LESSONS = ROOT / ".lessons" / "lessons"


class Shape(NamedTuple):
    text: str  # as it sits in a rule, a rationale or a command
    secret: str  # what must not reach the log


GH = "ghp_R7x2Kq9LmZ4vT8nW3pY6bC1dF5gH0jA2sE4u"
AWS = "AKIA4HZQX7MRT2LKWN9P"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# Realistic fakes, one of each shape.
SECRET_SHAPES: dict[str, Shape] = {
    # Provider tokens.
    "aws access key": Shape(f"aws configure set aws_access_key_id {AWS}", AWS),
    "github classic": Shape(f"gh auth login --with-token {GH}", GH),
    "github oauth": Shape(
        "export GH_TOKEN=gho_Fq8Lr2Nx6Vz1Tb4Mk7Pc9Ws3Hd5Jy0Ga2Ue6", "Fq8Lr2Nx6Vz1Tb4Mk7Pc9Ws3"
    ),
    "github fine-grained": Shape(
        "github_pat_11AQ7ZK3Y0rT5mWq2Lx9Vb_Hn4Pc8Zs1Kd6Fj3Ty7Ue0Wa5Ri2Om9Lb4Nc8Xv1Qe6Sg3Hk7",
        "11AQ7ZK3Y0rT5mWq2Lx9Vb_Hn4",
    ),
    "gitlab": Shape("glpat-Xb7Kq2Ln9Vz4Tr1Mw8Pq", "Xb7Kq2Ln9Vz4Tr1Mw8Pq"),
    "openai project": Shape(
        "OPENAI_API_KEY=sk-proj-Rf4Tg7Yh2Uj9Ik1Ol3Pz6Xc8Vb5Nm0Qw", "Rf4Tg7Yh2Uj9Ik1Ol3Pz6"
    ),
    "anthropic": Shape(
        "sk-ant-api03-Hq9Wn2Lx7Rz4Tk1Vp8Mc3Bs6Dy0Fg5Jh2Ka9Le4", "Hq9Wn2Lx7Rz4Tk1Vp8Mc3"
    ),
    "stripe live": Shape("sk_live_51Hx8Kq2Lm9Vz4Tr7Nw1Pb3", "51Hx8Kq2Lm9Vz4Tr7Nw1Pb3"),
    "slack bot": Shape(
        "xoxb-7391046285-2846190375-Qz8Wx3Lk5Rn1Vb7Mt2Ps9Hc4", "2846190375-Qz8Wx3Lk5"
    ),
    "npm": Shape(
        "//registry.npmjs.org/:_authToken=npm_Lr8Kx2Qm7Vz4Tn1Wb9Pc3Hs6Dy0Fg5Jk2Ua",
        "Lr8Kx2Qm7Vz4Tn1Wb9Pc3",
    ),
    "pypi": Shape(
        "twine upload -p pypi-AgEIcHlwaS5vcmcCJGE3YjQ5ZTgyLWQxYzMtNGY1Ni04OTBhLWIxMmMzZDRlNWY2Nw",
        "AgEIcHlwaS5vcmcCJGE3YjQ5ZTgy",
    ),
    "sendgrid": Shape(
        "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",
        "Qx7Lk2Mz9Vr4Tn1Wb8Pc3H",
    ),
    "google api key": Shape("AIzaSyD4Lk9Qx2Mz7Vr1Tn8Wb3Pc6Hs0Dy5Fg2J", "SyD4Lk9Qx2Mz7Vr1Tn8"),
    "jwt": Shape(
        "Authorization: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
        "eyJzdWIiOiJkZXBsb3kiLCJpYXQiOjE3MDAwMDAwMDB9.Xq7Lk2Mz9Vr4Tn1Wb8Pc3Hs6Dy0Fg5Jk2Ua9Le4Rx",
        "eyJzdWIiOiJkZXBsb3kiLCJpYXQi",
    ),
    "private key": Shape(
        "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmU "
        "-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU",
    ),
    # Credentials in URLs and connection strings.
    "postgres url": Shape("psql postgres://admin:S3cr3tP4ss@db/app", "S3cr3tP4ss"),
    "mongodb srv": Shape(
        "mongosh mongodb+srv://svc:Kq8xLm2Vz@cluster0.example.net/app", "Kq8xLm2Vz"
    ),
    "redis url": Shape("REDIS_URL=redis://default:Rd7Wq2Lx9Vn@cache:6379/0", "Rd7Wq2Lx9Vn"),
    "amqp url": Shape("amqp://guest:Mq4Tz8Lp1Rw@rabbit:5672/", "Mq4Tz8Lp1Rw"),
    "git https token": Shape(
        "git clone https://deploy:Gt5Hn8Wq2Lz7@git.example.com/team/app.git", "Gt5Hn8Wq2Lz7"
    ),
    "azure storage": Shape(
        "DefaultEndpointsProtocol=https;AccountName=prodlogs;AccountKey="
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;"
        "EndpointSuffix=core.windows.net",
        "Eby8vdM02xNOcqFlqUwJPLlmEt",
    ),
    "azure service bus": Shape(
        "Endpoint=sb://orders.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
        "SharedAccessKey=Zq4Lx8Wm2Vr7Tn1Pb9Hc3Ks6Dy0Fg5Jk2Ua9Le4Rx=",
        "Zq4Lx8Wm2Vr7Tn1Pb9Hc3Ks6",
    ),
    "odbc": Shape("Server=db;Database=app;User Id=sa;Password=Od8cWq2Lx7;", "Od8cWq2Lx7"),
    "jdbc": Shape("jdbc:mysql://db:3306/app?user=app&password=Jd8Qw2Lx7Vz", "Jd8Qw2Lx7Vz"),
    "azure sas": Shape(
        "https://acct.blob.core.windows.net/c?sv=2022-11-02&sig=Wq8Lx2Mz7Vr4Tn1Pb9Hc3Ks6Dy0Fg5%3D",
        "Wq8Lx2Mz7Vr4Tn1Pb9Hc3Ks6",
    ),
    # Assignments.
    "env password": Shape("export DB_PASSWORD=hunter2hunter2", "hunter2hunter2"),
    "pgpassword": Shape("PGPASSWORD=Pg7Wq2Lx9Vn psql -h db app", "Pg7Wq2Lx9Vn"),
    "mysql_pwd": Shape("MYSQL_PWD=My5Qz8Lp1Rw mysql app", "My5Qz8Lp1Rw"),
    "yaml api key": Shape("api_key: 'abc123def456ghi'", "abc123def456ghi"),
    "json client secret": Shape('"client_secret": "Cs9Wq2Lx7Vz4Tn1Pb"', "Cs9Wq2Lx7Vz4Tn1Pb"),
    "camel case secret": Shape("clientSecret=Kp3Lq8Zw2Vx7Rn", "Kp3Lq8Zw2Vx7Rn"),
    "ini password": Shape("password = Wq8#Lx2!Mz", "Wq8#Lx2!Mz"),
    # Passwords in words.
    "password is": Shape("The staging DB password is Tr0ub4dor&3", "Tr0ub4dor&3"),
    "password was": Shape("the admin password was Adm1n!2024 until May", "Adm1n!2024"),
    "token is quoted": Shape("the deploy token is 'Dp7Wq2Lx9Vn4'", "Dp7Wq2Lx9Vn4"),
    "password set to": Shape("root password is set to R00tPa55", "R00tPa55"),
    # Passwords on command lines.
    "curl -u": Shape("curl -u admin:S3cr3tP4ss https://api.example.com", "S3cr3tP4ss"),
    "curl --user=": Shape("curl --user=deploy:Cu8Wq2Lx https://x", "Cu8Wq2Lx"),
    "curl -u quoted": Shape("curl -u 'ci:Qz8!Lp2Wx' https://x", "Qz8!Lp2Wx"),
    "wget password": Shape("wget --password=Wg7Lx2Qz https://files/x", "Wg7Lx2Qz"),
    "sshpass -p": Shape("sshpass -p 'Pa55w0rd' ssh deploy@host", "Pa55w0rd"),
    "sshpass -p bare": Shape("sshpass -p hunter22 ssh deploy@host", "hunter22"),
    "mysql -p": Shape("mysql -u root -pS3cr3tP4ss app", "S3cr3tP4ss"),
    "mysqldump -p": Shape("mysqldump -uroot -pDump2024x app > app.sql", "Dump2024x"),
    "mysql --password=": Shape("mysql --password=Ms7Wq2Lx app", "Ms7Wq2Lx"),
    "docker login -p": Shape("docker login -u ci -p Xk9mQ2vL7 registry.example.com", "Xk9mQ2vL7"),
    "docker login --password": Shape(
        "docker login --password 'Dk8Lq2Wz' registry.example.com", "Dk8Lq2Wz"
    ),
    "helm registry login": Shape("helm registry login -u ci -p Hm7Wq2Lx9 ghcr.io", "Hm7Wq2Lx9"),
    "redis-cli -a": Shape("redis-cli -a Rc8Wq2Lx7 ping", "Rc8Wq2Lx7"),
    "ldapsearch -w": Shape("ldapsearch -D cn=admin -w Ld7Qz2Lp ou=people", "Ld7Qz2Lp"),
    "sqlcmd -P": Shape("sqlcmd -S db -U sa -P Sq9Wz2Lx -Q 'select 1'", "Sq9Wz2Lx"),
    "generic --token=": Shape("deploy --token=Tk7Wq2Lx9Vn4 prod", "Tk7Wq2Lx9Vn4"),
    "bearer header": Shape(
        "curl -H 'Authorization: Bearer Br8Wq2Lx7Vz4Tn1Pb9Hc3' https://x", "Br8Wq2Lx7Vz4Tn1Pb9Hc3"
    ),
    "basic header": Shape(
        f"curl -H 'Authorization: Basic {_b64('ci:Qw8Lx2Mz')}' https://x", _b64("ci:Qw8Lx2Mz")
    ),
    # Hidden: split, format characters, full-width letters, base64.
    "token split by spaces": Shape("ghp_R7x2Kq9L mZ4vT8nW3pY6 bC1dF5gH0jA2sE4u", "mZ4vT8nW3pY6"),
    "token split by letters": Shape(" ".join(AWS), " ".join(AWS[4:12])),
    "zero-width in token": Shape(GH[:10] + "\u200b" + GH[10:25] + "\u200d" + GH[25:], GH[12:24]),
    "soft hyphen in key": Shape(AWS[:8] + "\u00ad" + AWS[8:], AWS[8:]),
    "word joiner in url": Shape("postgres://admin:S3cr\u2060etPass9@db/app", "etPass9"),
    "full-width token": Shape(
        "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in GH),
        "".join(chr(ord(c) + 0xFEE0) for c in GH[8:20]),
    ),
    "base64 token": Shape(f"echo {_b64(GH)} | base64 -d", _b64(GH)),
    "base64 url credentials": Shape(
        _b64("postgres://admin:S3cr3tP4ss@db/app"), _b64("postgres://admin:S3cr3tP4ss@db/app")
    ),
    "base64 of base64": Shape(_b64(_b64(AWS)), _b64(_b64(AWS))),
}


# Rules written to sit next to a credential without holding one.
TRICKY_RULES: tuple[str, ...] = (
    "Never pass mysql -p with the password inline; use ~/.my.cnf.",
    "Run mysql -p alone so it prompts; a password after -p lands in the shell history.",
    "Use mysql -p$MYSQL_PWD only in CI, where the variable comes from the secret store.",
    "Write `mysql -u root -p` and type the password at the prompt.",
    "mysqldump needs -p (no value) to prompt; never -pPASSWORD in scripts.",
    "Give curl -u user:password only in docs as a placeholder; scripts read a .netrc.",
    "Use curl -u $USER:$TOKEN with both from the environment, never literals.",
    "curl -u user prompts for the password, which is what the smoke script wants.",
    "Prefer curl --netrc-file over curl -u in the release scripts.",
    "Use sshpass -f FILE, never sshpass -p with a literal password.",
    "sshpass -p; is refused by the lint step, so use an SSH key.",
    "Pipe the token into docker login --password-stdin; docker login -p leaks it to ps.",
    "docker login -p with an inline password ends up in ~/.bash_history.",
    "Run docker login -u ci --password-stdin < token.txt in the deploy job.",
    "The password is stored in Vault under secret/db/prod; never copy it into .env.",
    "The password is required by the installer, so run it with the --unattended file.",
    "The token is read from $GITHUB_TOKEN; do not hard-code one in workflows.",
    "The token is valid for 2 hours, so refresh it before long migrations.",
    "The API key is in 1Password under 'Staging API'; ask ops for access.",
    "Set PASSWORD_MIN_LENGTH=12 in settings.py, not in the form class.",
    "Keep maxTokens: 4096 in the model config; the proxy refuses more.",
    "Set token_budget: 2000 for the summariser and no more.",
    "A password field must use type=password so browsers mask it.",
    "Hash every password with argon2id; never sha256 or md5.",
    "Secrets go in .env.local (git-ignored); .env holds placeholders like DB_PASSWORD=changeme.",
    "Use DB_PASSWORD=${DB_PASSWORD} in docker-compose.yml so the value comes from the shell.",
    "Read the key with api_key = os.environ['API_KEY'], never a literal.",
    "password: required in the OpenAPI schema means the client must send the field.",
    "Keep `secret_name: app-db-secret` in the Helm values; the chart mounts it.",
    "The Kubernetes secret is named db-credentials; mount it, do not copy values.",
    "Call auth.getToken() before every request; tokens expire after an hour.",
    "The CSRF token header is X-CSRF-Token, not X-XSRF-Token.",
    "Basic authentication is disabled on the API; use OAuth2 client credentials.",
    "Send Authorization: Bearer <token> with the token from `gh auth token`.",
    "Fetch PRs with https://x-access-token:$(gh auth token)@github.com/<owner>/<repo>.git.",
    "Never commit AWS keys; use aws sso login and a named profile.",
    "Tokens that start with ghp_ are classic PATs; the org only accepts fine-grained ones.",
    "Use sk-proj keys only from the vault, never from a teammate's shell.",
    "redis-cli -a prints a warning about the password on the command line; use REDISCLI_AUTH.",
    "ldapsearch -W prompts for the bind password; -w takes it inline, so avoid -w.",
    "Use sqlcmd -P only with a variable such as -P $SQL_PASSWORD, never a literal.",
    "Pass --password-file to the backup tool instead of --password.",
    "The --token flag of the deploy CLI takes a file path when prefixed with @.",
    "Run `npm publish` only from CI, where NPM_TOKEN is set.",
    "Rotate the staging password every 90 days; the ticket template has the steps.",
    "Mask passwords in logs with the redact() helper before printing a DSN.",
    "postgres://user:password@localhost/db is the placeholder DSN; keep it in docs only.",
    "Use the connection string format Server=db;User Id=app;Password=<from vault>; in appsettings.",
    "The auth token cookie is HttpOnly and SameSite=Strict; keep it that way.",
    "Encode the upload as base64 before posting it to /api/files.",
    "Check that passwords have at least 12 characters, one digit and one symbol.",
    "PIN codes are 6 digits; validate them with a regex, not int().",
    "OAuth2 tokens are opaque strings; never decode them as JWTs.",
    "JWTs carry the user id in the sub claim; read it with jwt.decode and verify the signature.",
    "Use the -p flag of mkdir -p when creating nested build folders.",
    "python -m pytest -p no:randomly keeps the order for the flaky test hunt.",
    "git log -p shows the patch; add --stat for a summary.",
    "ssh -p 2222 reaches the staging bastion, not port 22.",
    "docker run -p 8080:80 maps the web port; the API listens on 3000.",
    "tar -pxf keeps permissions when unpacking the release archive.",
    "Never print the password, even masked, in the CLI's --verbose output.",
    "The secret key for Django comes from DJANGO_SECRET_KEY in the environment.",
    "Set the token audience to api://backend in the Azure app registration.",
    "The AccountName for local tests is devstoreaccount1, with Azurite's key from its docs.",
    "If the password is wrong, the migration exits with code 28, not 1.",
    "Upload with twine upload -r testpypi first; the token lives in ~/.pypirc.",
    "helm registry login -u ci --password-stdin is the only accepted form in CI.",
    "wget --ask-password prompts; never use wget --password in scripts.",
    "Use `password is not None` checks, not truthiness, for optional passwords.",
    "In tests, the fixture user has password 'test' and lives only in the throwaway DB.",
    "Set token_ttl: 86400s for service tokens; longer ones fail the audit.",
    "Pin secret_version: 1.2.3-rc1 in the chart until the operator is upgraded.",
    "The default password_reset_timeout: 30min is too short for the email provider.",
    "Keep api_key_version=v2 in the client; v1 keys are revoked.",
)


class Ordinary(NamedTuple):
    source: str
    rule: str
    rationale: str | None
    triggers: tuple[str, ...]  # command patterns, globs and keywords, as texts


def ordinary_rules() -> list[Ordinary]:
    """The real lessons of the bench corpus and of this repo, and the tricky rules."""
    found: list[Ordinary] = []
    graph = json.loads(BENCH_LESSONS.read_text())
    patterns = {key: trigger["pattern"] for key, trigger in graph["triggers"].items()}
    for key, lesson in graph["lessons"].items():
        triggers = tuple(patterns[t] for t in lesson.get("triggers", ()) if t in patterns)
        found.append(Ordinary(f"bench:{key}", lesson["rule"], lesson.get("rationale"), triggers))
    for path in sorted(OWN_LESSONS.glob("*.json")):
        lesson = json.loads(path.read_text())
        trig = lesson.get("triggers", {})
        texts = (*trig.get("files", ()), *trig.get("commands", ()), *trig.get("keywords", ()))
        found.append(Ordinary(f"own:{path.stem}", lesson["rule"], lesson.get("rationale"), texts))
    found.extend(Ordinary(f"tricky:{n}", rule, None, ()) for n, rule in enumerate(TRICKY_RULES))
    return found
