# A worker reuses the hash of a request's %env for the next request when
# nothing but the server holds it (xs/env.c). What an app sees must not
# change: each request's env holds exactly its own keys and the
# listener's values (whatever the request before changed, added or
# deleted), the objects a request left in its env go when it ends (not
# when the next request comes), and an env, or a value, that the app
# keeps is never touched again.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(start_server read_response eventually);

my $dir = tempdir(CLEANUP => 1);
my $server = start_server(app => <<"APP");
package Guard { sub DESTROY { open my \$fh, '>>', '$dir/destroyed' or die \$!; print \$fh "\$_[0]{name}\\n" } }
my (\@kept, \$kept_value);
sub {
    my \$env = shift;
    my \$op = \$env->{QUERY_STRING};
    my \@keys = grep { !/^(?:REQUEST_URI|QUERY_STRING|kamado\\.request_id)\$/ } sort keys %\$env;
    my \$report = join '', map {
        my \$v = \$env->{\$_};
        "\$_=" . (ref \$v ? ref \$v : \$v // 'undef') . "\\n"
    } \@keys;
    if (\$op eq 'mess') {
        \$env->{'psgi.url_scheme'} = 'gopher';
        \$env->{SCRIPT_NAME} .= '/mount';
        delete \$env->{SERVER_NAME};
        \$env->{'my.key'} = 'mine';
        \$env->{'my.guard'} = bless { name => 'guard' }, 'Guard';
        \$env->{HTTP_X_A} = \\'a reference now';
        \$env->{REMOTE_PORT} = 'changed';
    } elsif (\$op eq 'keep') {
        push \@kept, \$env;
    } elsif (\$op eq 'keep-value') {
        \$kept_value = \\\$env->{HTTP_X_A};
    } elsif (\$op eq 'kept') {
        \$report = "kept env: \$kept[0]{HTTP_X_K} \$kept[0]{QUERY_STRING} "
            . (exists \$kept[0]{HTTP_X_Z} ? 'has X-Z' : 'no X-Z') . "; kept value: \$\$kept_value\\n";
    }
    [200, ['Content-Type' => 'text/plain'], [\$report]];
}
APP

my $c = $server->connect;
my $get = sub {
    my ($op, @headers) = @_;
    syswrite $c, "GET /p?$op HTTP/1.1\r\nHost: h\r\n" . join('', map { "$_\r\n" } @headers) . "\r\n";
    my $res = read_response($c);
    return $res && $res->{status} == 200 ? $res->{body} : 'no answer';
};

my $first = $get->('first', 'X-A: 1');
like $first, qr/^HTTP_X_A=1$/m, 'the first request sees its header';
like $first, qr/^psgi\.url_scheme=http$/m, 'and the listener\'s values';

is $get->('mess', 'X-B: 2'), $first =~ s/^HTTP_X_A=1\n/HTTP_X_B=2\n/mr, 'a second request: its own header, not the first\'s';
ok eventually(sub { -s "$dir/destroyed" }, 10),
    'an object the request left in its env is destroyed when the request ends, before any other request';

is $get->('again', 'X-A: 1'), $first,
    'after a request changed, added and deleted keys: the same env as the first request\'s';
is $get->('no-headers'), $first =~ s/^HTTP_X_A=1\n//mr, 'no header of the requests before remains';

$get->('keep', 'X-K: k');
$get->('keep-value', 'X-A: kept');
is $get->('second', 'X-A: 1', 'X-Z: z'), $first =~ s/^(HTTP_X_A=1\n)/$1HTTP_X_Z=z\n/mr,
    'the request after one whose env the app kept';
is $get->('kept'), "kept env: k keep no X-Z; kept value: kept\n",
    'an env the app kept, and a value it kept, are never touched by later requests';

open my $fh, '<', "$dir/destroyed" or die $!;
is do { local $/; <$fh> }, "guard\n", 'the object was destroyed once';
done_testing;
