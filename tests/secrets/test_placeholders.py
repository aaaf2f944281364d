"""What documentation writes in a secret's place without giving one: a field to fill in
(`{password}`), a type (`DB_PASSWORD: string;`), a command that asks for it (`Read-Host`).
None is a secret; a value typed in the same places still is."""

from __future__ import annotations

import pytest

from skillwiki import secrets

pytestmark = pytest.mark.own

NO_SECRET = [
    "mysql -u root -p{password}",
    "PGPASSWORD={password} psql",
    "cockroach sql --password {password}",
    "postgresql://{username}:{password}@{host}:26257/defaultdb",
    "Server=db;Database=app;Password={password};",
    "  DB_PASSWORD: string;",
    "  readonly DB_PASSWORD: string;",
    "function login(password: string): void",
    "type User { password: String! }",
    "$password = Read-Host -AsSecureString",
    "$Password = Read-Host -Prompt 'Enter the password' -AsSecureString",
    "$password: Read-Host",
    "$secpasswd = ConvertTo-SecureString $plain -AsPlainText -Force",
    '$password = ConvertTo-SecureString "MyPlainTextPassword" -AsPlainText -Force',
    # a signed .NET assembly's public key token, printed in every reference to it
    'System.Management.Automation, Culture=neutral, PublicKeyToken=31bf3856ad364e35"',
]
STILL_SECRET = [
    "Server=db;Database=app;Password=Xk9#mQ2vLp7z;",
    "password: Stringent9!",
    "password = '{Xk9#mQ2vLp7z}'",
    "$password = 'Read-Host9!x'",
    "postgresql://root:Xk9mQ2vLp7z@host:26257/defaultdb",
    '$Secure_String_Pwd = ConvertTo-SecureString "P@ssW0rD!" -AsPlainText -Force',
]


@pytest.mark.parametrize("line", NO_SECRET)
def test_a_placeholder_a_type_or_a_prompt_is_no_secret(line: str) -> None:
    assert secrets.find(line) == []


@pytest.mark.parametrize("line", STILL_SECRET)
def test_a_value_typed_in_its_place_is_still_one(line: str) -> None:
    assert [secret.kind for secret in secrets.find(line)] in (["password"], ["url_password"])


def test_a_password_written_out_for_convertto_securestring_is_found_where_it_is() -> None:
    line = "$s = ConvertTo-SecureString -String 'Xk9#mQ2vLp7z' -AsPlainText -Force"
    [secret] = secrets.find(line)
    assert (secret.kind, line[secret.start : secret.end]) == ("password", "Xk9#mQ2vLp7z")
