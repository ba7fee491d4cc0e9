/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading pathmond's WatchPath replies with json-glib; the message format is docs/io.pathmond.varlink. */
#include "path-state.h"

#include <json-glib/json-glib.h>

PathmondPathState
pathmond_path_state_defaults (void)
{
  return (PathmondPathState){
    .available = TRUE, .metered = FALSE, .supports_ipv4 = TRUE, .supports_ipv6 = TRUE, .captive = FALSE,
    .limited = FALSE
  };
}

gboolean
pathmond_path_state_equal (const PathmondPathState *a, const PathmondPathState *b)
{
  return a->available == b->available && a->metered == b->metered && a->supports_ipv4 == b->supports_ipv4 &&
         a->supports_ipv6 == b->supports_ipv6 && a->captive == b->captive &&
         a->limited == b->limited;
}

GNetworkConnectivity
pathmond_path_state_connectivity (const PathmondPathState *state)
{
  if (!state->available)
    return G_NETWORK_CONNECTIVITY_LOCAL;
  /* What GLib's NetworkManager backend reports for NM_CONNECTIVITY_PORTAL, and what Qt's glib backend turns into
   * isBehindCaptivePortal. */
  if (state->captive)
    return G_NETWORK_CONNECTIVITY_PORTAL;
  /* NetworkManager's backend reports NM_CONNECTIVITY_LIMITED so: a network that reaches no further than itself. */
  return state->limited ? G_NETWORK_CONNECTIVITY_LIMITED : G_NETWORK_CONNECTIVITY_FULL;
}

static gboolean
malformed (GError **error, const char *what)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "pathmond sent a malformed reply: %s", what);
  return FALSE;
}

/* The member `name` of `object` as a JSON object, or NULL when absent or of another type. */
static JsonObject *
object_member (JsonObject *object, const char *name)
{
  JsonNode *node = json_object_get_member (object, name);
  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/* Reads a boolean member; absent counts as `fallback`, any other type is malformed. */
static gboolean
boolean_member (JsonObject *object, const char *name, gboolean fallback, gboolean *value)
{
  JsonNode *node = json_object_get_member (object, name);
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      *value = fallback;
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return FALSE;
  *value = json_node_get_boolean (node);
  return TRUE;
}

static gboolean
read_reply (JsonObject *reply, PathmondPathState *state, gboolean *continues, GError **error)
{
  JsonNode *error_name = json_object_get_member (reply, "error");
  if (error_name != NULL)
    {
      const char *name = JSON_NODE_HOLDS_VALUE (error_name) ? json_node_get_string (error_name) : NULL;
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "pathmond replied with the error %s",
                   name != NULL ? name : "(unnamed)");
      return FALSE;
    }
  if (!boolean_member (reply, "continues", FALSE, continues))
    return malformed (error, "\"continues\" is not a boolean");

  JsonObject *parameters = object_member (reply, "parameters");
  JsonObject *path = parameters != NULL ? object_member (parameters, "path") : NULL;
  if (path == NULL)
    return malformed (error, "no \"path\" object in its parameters");

  JsonNode *status = json_object_get_member (path, "status");
  const char *status_name = status != NULL && JSON_NODE_HOLDS_VALUE (status) ? json_node_get_string (status) : NULL;
  if (g_strcmp0 (status_name, "satisfied") == 0)
    state->available = TRUE;
  else if (g_strcmp0 (status_name, "unsatisfied") == 0)
    state->available = FALSE;
  else
    return malformed (error, "\"status\" is neither satisfied nor unsatisfied");

  gboolean expensive, constrained;
  if (!boolean_member (path, "isExpensive", FALSE, &expensive) ||
      !boolean_member (path, "isConstrained", FALSE, &constrained) ||
      !boolean_member (path, "supportsIPv4", FALSE, &state->supports_ipv4) ||
      !boolean_member (path, "supportsIPv6", FALSE, &state->supports_ipv6))
    return malformed (error, "a path flag is not a boolean");
  /* Metered in GLib's sense is what Low Data Mode and expensive both ask for: hold back what can wait. */
  state->metered = expensive || constrained;

  /* Absent (an older pathmond) or a state this module does not know (a newer one's) is neither captive nor
   * limited. */
  JsonNode *portal = json_object_get_member (path, "captivePortal");
  if (portal != NULL && !JSON_NODE_HOLDS_NULL (portal) &&
      (!JSON_NODE_HOLDS_VALUE (portal) || json_node_get_value_type (portal) != G_TYPE_STRING))
    return malformed (error, "\"captivePortal\" is not a string");
  const gchar *portal_state =
      portal != NULL && JSON_NODE_HOLDS_VALUE (portal) ? json_node_get_string (portal) : NULL;
  state->captive = g_strcmp0 (portal_state, "captive") == 0;
  state->limited = g_strcmp0 (portal_state, "limited") == 0;
  return TRUE;
}

/* WatchPath replies nest four deep; json-glib's parser recurses once per level, so a message of 64 KiB of '['
 * could exhaust a small thread stack before the parser says anything. Counted outside strings, before parsing. */
#define MAXIMUM_DEPTH 32

static gboolean
nesting_within_limit (const char *message, gsize length)
{
  guint depth = 0;
  gboolean in_string = FALSE;
  for (gsize i = 0; i < length; i++)
    {
      char c = message[i];
      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '{' || c == '[')
        {
          if (++depth > MAXIMUM_DEPTH)
            return FALSE;
        }
      else if ((c == '}' || c == ']') && depth > 0)
        depth--;
    }
  return TRUE;
}

/* json-glib keeps the last of a repeated member, where pathmond's own reader refuses the message (and a reader
 * that keeps the first would see another value): a reply that names a member twice means what each reader makes of
 * it, so it is refused here too, as garbage. json-glib 1.6 (Debian 12) has no strict mode, but its parser emits
 * object-start as an object begins, object-member once it has set each member (json_object_set_member, which
 * replaces a repeated one) and object-end when the object is whole: one count per open object, innermost last,
 * and a member whose setting did not grow its object repeats an earlier name. */
typedef struct
{
  GArray *counts;
  gboolean repeated;
} MemberCheck;

static void
member_check_object_start (G_GNUC_UNUSED JsonParser *parser, gpointer data)
{
  MemberCheck *check = data;
  guint none = 0;
  g_array_append_val (check->counts, none);
}

static void
member_check_object_member (G_GNUC_UNUSED JsonParser *parser, JsonObject *object,
                            G_GNUC_UNUSED const char *name, gpointer data)
{
  MemberCheck *check = data;
  /* Every object starts before its first member; a parser that did otherwise is not trusted either. */
  if (check->counts->len == 0)
    {
      check->repeated = TRUE;
      return;
    }
  guint *count = &g_array_index (check->counts, guint, check->counts->len - 1);
  *count += 1;
  if (json_object_get_size (object) != *count)
    check->repeated = TRUE;
}

static void
member_check_object_end (G_GNUC_UNUSED JsonParser *parser, G_GNUC_UNUSED JsonObject *object, gpointer data)
{
  MemberCheck *check = data;
  if (check->counts->len > 0)
    g_array_set_size (check->counts, check->counts->len - 1);
}

gboolean
pathmond_path_state_parse_reply (const char *message, gsize length, PathmondPathState *state,
                                 gboolean *continues, GError **error)
{
  /* An empty message (a lone NUL) reaches json-glib as NULL data: it fails without setting its error. */
  if (message == NULL || length == 0)
    return malformed (error, "an empty message");
  if (!nesting_within_limit (message, length))
    return malformed (error, "nested too deep");
  g_autoptr (GArray) counts = g_array_sized_new (FALSE, FALSE, sizeof (guint), MAXIMUM_DEPTH);
  MemberCheck check = { .counts = counts, .repeated = FALSE };
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
  g_signal_connect (parser, "object-start", G_CALLBACK (member_check_object_start), &check);
  g_signal_connect (parser, "object-member", G_CALLBACK (member_check_object_member), &check);
  g_signal_connect (parser, "object-end", G_CALLBACK (member_check_object_end), &check);
  g_autoptr (GError) parse_error = NULL;
  if (!json_parser_load_from_data (parser, message, (gssize) length, &parse_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "pathmond sent a reply that is not JSON: %s",
                   parse_error != NULL ? parse_error->message : "(no reason given)");
      return FALSE;
    }
  if (check.repeated)
    return malformed (error, "an object names a member twice");
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return malformed (error, "not a JSON object");

  PathmondPathState parsed = *state;
  gboolean parsed_continues = FALSE;
  if (!read_reply (json_node_get_object (root), &parsed, &parsed_continues, error))
    return FALSE;
  *state = parsed;
  *continues = parsed_continues;
  return TRUE;
}
