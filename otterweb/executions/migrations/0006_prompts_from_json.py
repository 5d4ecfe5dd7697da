"""Job templates' JSON prompts ({name, default, description}) become JobTemplatePrompt rows,
in order. A JSON prompt had no type, so each becomes a text prompt; one without a default was
required (the run was refused without a value), so it stays required."""

from django.db import migrations


def prompt_rows(prompts) -> list[dict]:
    """The JobTemplatePrompt fields for each JSON prompt, in order; a prompt without a name, or
    whose name (any case) came before, is left out (the unique constraint would refuse it)."""
    rows: list[dict] = []
    seen: set[str] = set()
    for prompt in prompts if isinstance(prompts, list) else []:
        if not isinstance(prompt, dict):
            continue
        name = str(prompt.get("name") or "").strip()
        if not name or name.casefold() in seen:
            continue
        seen.add(name.casefold())
        default = prompt.get("default")
        rows.append(
            {
                "position": len(rows),
                "name": name,
                "type": "text",
                "default": "" if default is None else _text(default),
                "required": "default" not in prompt,
                "choices": [],
                "description": _text(prompt.get("description") or ""),
            }
        )
    return rows


def json_prompts(rows) -> list[dict]:
    """Back: the JSON prompts of a template's rows (their types are lost)."""
    prompts = []
    for row in rows:
        prompt = {"name": row.name}
        if row.default or not row.required:
            prompt["default"] = row.default
        if row.description:
            prompt["description"] = row.description
        prompts.append(prompt)
    return prompts


def _text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def forwards(apps, schema_editor) -> None:
    JobTemplate = apps.get_model("executions", "JobTemplate")
    JobTemplatePrompt = apps.get_model("executions", "JobTemplatePrompt")
    for template in JobTemplate.objects.only("pk", "prompts").iterator():
        JobTemplatePrompt.objects.bulk_create(
            JobTemplatePrompt(template_id=template.pk, **row)
            for row in prompt_rows(template.prompts)
        )


def backwards(apps, schema_editor) -> None:
    JobTemplate = apps.get_model("executions", "JobTemplate")
    JobTemplatePrompt = apps.get_model("executions", "JobTemplatePrompt")
    for template in JobTemplate.objects.filter(prompt_fields__isnull=False).distinct():
        rows = JobTemplatePrompt.objects.filter(template=template).order_by("position", "pk")
        template.prompts = json_prompts(rows)
        template.save(update_fields=["prompts"])
    JobTemplatePrompt.objects.all().delete()  # back in the JSON: forwards makes them again


class Migration(migrations.Migration):
    dependencies = [
        ("executions", "0005_job_template_prompt"),
    ]

    operations = [
        migrations.RunPython(forwards, backwards),
    ]
