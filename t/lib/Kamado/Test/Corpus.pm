package Kamado::Test::Corpus;
use 5.024;
use strict;
use warnings;

# The runner behind t/http/corpus.t: loads the cases of t/corpus/ (a
# NAME.http file of exact request bytes and a NAME.expect file of
# "key: value" lines, see t/corpus/README), starts servers whose app logs
# every request it runs (its %env and the body it read, one line each),
# sends each case over a real loopback socket and checks what came back.

use Exporter 'import';
use File::Basename ();
use File::Temp ();
use Socket qw(IPPROTO_TCP TCP_NODELAY);
use Test::More ();
use Time::HiRes ();
use Kamado::Test qw(start_server);
use Kamado::Test::HTTP qw(parse_all pump read_until_close);

our @EXPORT_OK = qw(load_cases corpus_server records run_case unescape escape
    SMUGGLED FOLLOW_UP);

# appended to every case that must end with the connection closed: the
# server must never answer it nor run it (RFC 9112 9.6)
use constant SMUGGLED => "GET /__smuggled HTTP/1.1\r\nHost: x\r\n\r\n";
# sent after the responses of a case that must keep the connection open:
# a 200 for it proves the connection is open and still in step
use constant FOLLOW_UP => "GET /__follow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

my %KNOWN = map { $_ => 1 } qw(status connection app interim no_body args note env absent body body_length);

# "\xNN" stands for the byte NN and "\\" for a backslash; nothing else is special
sub unescape {
    my ($s) = @_;
    $s =~ s/\\(?:x([0-9a-fA-F]{2})|(\\))/defined $1 ? chr hex $1 : '\\'/ge;
    return $s;
}

sub escape {
    my ($s) = @_;
    $s =~ s/([^\x21-\x5b\x5d-\x7e])/sprintf '\\x%02x', ord $1/ge;
    return $s;
}

# Parses a .expect file: { status => [..], connection, app, args => [..],
# interim => [..] or undef, no_body => {n => 1}, req => { n => { env =>
# {K => V}, absent => [..], body, body_length } } }
sub parse_expect {
    my ($text, $file) = @_;
    my %e = (req => {});
    for my $line (split /\n/, $text) {
        next if $line =~ /\A\s*(?:#|\z)/;
        my ($n, $key, $sub, $value) = $line =~ /\A(?:(\d+)\.)?([a-z_]+)(?:\.([^:]+))?: ?(.*)\z/s
            or die "$file: can't parse line: $line\n";
        die "$file: unknown key $key\n" unless $KNOWN{$key};
        if ($key eq 'env') {
            $e{req}{ $n // 1 }{env}{$sub} = unescape($value);
        } elsif ($key eq 'absent') {
            push $e{req}{ $n // 1 }{absent}->@*, split ' ', $value;
        } elsif ($key eq 'body') {
            $e{req}{ $n // 1 }{body} = unescape($value);
        } elsif ($key eq 'body_length') {
            $e{req}{ $n // 1 }{body_length} = $value;
        } elsif ($key eq 'status') {
            $e{status} = [split ' ', $value];
        } elsif ($key eq 'interim') {
            $e{interim} = $value eq 'none' ? [] : [split ' ', $value];
        } elsif ($key eq 'no_body') {
            $e{no_body} = { map { $_ => 1 } split ' ', $value };
        } elsif ($key eq 'args') {
            $e{args} = [split ' ', $value];
        } elsif ($key eq 'note') {
            $e{note} = defined $e{note} ? "$e{note} $value" : $value;
        } else {
            $e{$key} = $value;
        }
    }
    die "$file: no status\n" unless $e{status} && $e{status}->@*;
    $e{connection} //= (grep { $_ >= 400 } $e{status}->@*) ? 'close' : 'keep-alive';
    die "$file: connection must be close or keep-alive\n" unless $e{connection} =~ /\A(?:close|keep-alive)\z/;
    $e{app} //= (grep { $_ == 200 } $e{status}->@*) ? 'yes' : 'no';
    die "$file: app must be yes or no\n" unless $e{app} =~ /\A(?:yes|no)\z/;
    die "$file: env/body expectations but app: no\n" if $e{app} eq 'no' && keys $e{req}->%*;
    $e{args} //= [];
    $e{no_body} //= {};
    return \%e;
}

sub _slurp {
    my ($path) = @_;
    open my $fh, '<:raw', $path or die "$path: $!";
    local $/;
    return scalar <$fh>;
}

# All cases in $dir, sorted by name: [{ name, bytes, expect }]
sub load_cases {
    my ($dir) = @_;
    my @cases;
    for my $http (sort glob "$dir/*.http") {
        my $name = File::Basename::basename($http, '.http');
        my $exp = "$dir/$name.expect";
        die "$http has no $name.expect\n" unless -f $exp;
        push @cases, { name => $name, bytes => _slurp($http), expect => parse_expect(_slurp($exp), $exp) };
    }
    for my $exp (glob "$dir/*.expect") {
        (my $http = $exp) =~ s/\.expect\z/.http/;
        die "$exp has no .http file\n" unless -f $http;
    }
    return \@cases;
}

# A server (one worker) whose app appends one line per request to a log:
# "KEY=value ..." for every upper-case %env key, and BODY= for the body it
# read, each key and value escaped (no spaces, no line ends). The app
# answers 200 "ok".
sub corpus_server {
    my (%opt) = @_;
    my $dir = File::Temp::tempdir(CLEANUP => 1);
    local $ENV{KT_CORPUS_LOG} = "$dir/requests";
    my $server = start_server(%opt, app => <<'APP');
my $log = $ENV{KT_CORPUS_LOG};
sub esc { my $s = shift; $s =~ s/([^\x21-\x5b\x5d-\x7e])/sprintf '\\x%02x', ord $1/ge; $s }
sub {
    my $env = shift;
    my $body = do { local $/; my $in = $env->{'psgi.input'}; <$in> } // '';
    my @pairs = map { esc($_) . '=' . esc($env->{$_}) }
        sort grep { /\A[A-Z]/ && defined $env->{$_} && !ref $env->{$_} } keys %$env;
    open my $fh, '>>', $log or die "$log: $!";
    print $fh join(' ', @pairs, 'BODY=' . esc($body)), "\n";
    close $fh;
    [200, ['Content-Type' => 'text/plain'], ['ok']];
}
APP
    $server->{corpus_log} = "$dir/requests";
    return $server;
}

# The requests the app logged from byte $offset on: ([{ env => {..},
# body }], the new offset).
sub records {
    my ($server, $offset) = @_;
    open my $fh, '<:raw', $server->{corpus_log} or return ([], $offset // 0);
    seek $fh, $offset // 0, 0;
    my @recs;
    while (my $line = <$fh>) {
        last unless $line =~ s/\n\z//;    # a line still being written
        my %env = map { my ($k, $v) = split /=/, $_, 2; (unescape($k) => unescape($v // '')) } split / /, $line;
        my $body = delete $env{BODY};
        push @recs, { env => \%env, body => $body };
        $offset = tell $fh;
    }
    return (\@recs, $offset // 0);
}

sub log_size { -s $_[0]{corpus_log} // 0 }

# Sends $bytes (reading meanwhile, so a server answering early never
# blocks on us) until $want final responses have arrived, the server
# closes, or $timeout passes. Returns (all bytes read, how), how being
# 'eof', 'reset', 'got' or 'timeout'.
sub converse {
    my ($sock, $bytes, %opt) = @_;
    my $deadline = Time::HiRes::time() + ($opt{timeout} // 3);
    my ($buf, $off) = ('', 0);
    my $done = sub {
        return 0 unless defined $opt{want};
        my ($res) = parse_all($buf, no_body => $opt{no_body});
        return (grep { $_->{status} !~ /\A1/ } @$res) >= $opt{want};
    };
    my $got_at;    # when the responses were all there
    $sock->blocking(0);
    while ((my $left = $deadline - Time::HiRes::time()) > 0) {
        my $how = pump($sock, \$bytes, \$off, \$buf, $left, 65536) // next;
        last if $how eq 'idle';
        return ($buf, $how) if $how =~ /\A(?:eof|reset|error)/;
        # the server may close before reading everything: read what it said
        $off = length $bytes if $how =~ /\Awrite error/;
        $got_at //= Time::HiRes::time() if $off >= length $bytes && $done->();
        next unless defined $got_at;
        # with close_wait, the server has that long to close after its last response
        return ($buf, 'got') unless defined $opt{close_wait};
        $deadline = $got_at + $opt{close_wait} if $got_at + $opt{close_wait} < $deadline;
    }
    return ($buf, 'timeout');
}

# Runs one case against $server as a subtest named after it.
sub run_case {
    my ($server, $case, %opt) = @_;
    my $e = $case->{expect};
    my $timeout = $opt{timeout} // 3;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    Test::More::subtest($case->{name} => sub {
        Test::More::note($e->{note}) if defined $e->{note};
        my (undef, $log_at) = records($server, log_size($server));
        my $sock = $server->connect;
        setsockopt $sock, IPPROTO_TCP, TCP_NODELAY, 1;
        my @no_body = map { $e->{no_body}{$_} ? 1 : 0 } 1 .. 20;
        my $close = $e->{connection} eq 'close';
        my ($got, $how) = $close
            ? converse($sock, $case->{bytes} . SMUGGLED, timeout => $timeout, close_wait => 1,
                want => scalar $e->{status}->@*, no_body => \@no_body)
            : converse($sock, $case->{bytes}, timeout => $timeout, want => scalar $e->{status}->@*, no_body => \@no_body);
        # the interim responses carry no body: keep them out of no_body's count
        my ($all, $rest) = parse_all($got, no_body => \@no_body);
        my @interim = map { $_->{status} } grep { $_->{status} =~ /\A1/ } @$all;
        my @final = grep { $_->{status} !~ /\A1/ } @$all;
        if (@interim) {
            # re-parse with no_body shifted past the interim responses
            my @nb;
            my $i = 0;
            for my $r (@$all) { push @nb, $r->{status} =~ /\A1/ ? 0 : $no_body[$i++] }
            ($all, $rest) = parse_all($got, no_body => \@nb);
            @final = grep { $_->{status} !~ /\A1/ } @$all;
        }
        my $ok = Test::More::is(join(' ', map { $_->{status} } @final), join(' ', $e->{status}->@*), 'status: ' . join(' ', $e->{status}->@*));
        $ok &&= Test::More::is($rest, '', 'no bytes after the responses');
        Test::More::diag('got: ' . escape(substr $got, 0, 600)) unless $ok;
        Test::More::is_deeply(\@interim, $e->{interim}, 'interim responses: ' . (join(' ', $e->{interim}->@*) || 'none'))
            if $e->{interim};

        if ($close) {
            Test::More::ok($how eq 'eof' || $how eq 'reset', "connection closed after the response ($how)");
        } else {
            Test::More::is($how, 'got', 'the responses arrived on an open connection');
            Test::More::unlike($final[-1]{headers}{connection} // '', qr/close/i, 'no Connection: close') if @final;
            my ($more, $how2) = $how eq 'got' ? converse($sock, FOLLOW_UP, timeout => $timeout) : ('', $how);
            my ($res) = parse_all($more);
            Test::More::is(join(' ', map { $_->{status} } @$res), '200', 'kept open: a follow-up request on it gets 200')
                or Test::More::diag("follow-up ($how2): " . escape(substr $more, 0, 300));
        }

        my ($recs) = records($server, $log_at);
        my @smuggled = grep { ($_->{env}{REQUEST_URI} // '') eq '/__smuggled' } @$recs;
        Test::More::is(scalar @smuggled, 0, 'nothing after the end of the connection reached the app');
        my @mine = grep { ($_->{env}{REQUEST_URI} // '') !~ m{\A/__(?:smuggled|follow)\z} } @$recs;
        if ($e->{app} eq 'no') {
            Test::More::is(scalar @mine, 0, 'the app did not run')
                or Test::More::diag('it saw: ' . join ', ', map { "$_->{env}{REQUEST_METHOD} $_->{env}{REQUEST_URI}" } @mine);
        } else {
            Test::More::ok(scalar @mine, 'the app ran');
        }
        for my $n (sort { $a <=> $b } keys $e->{req}->%*) {
            my $want = $e->{req}{$n};
            my $rec = $mine[$n - 1];
            unless ($rec) { Test::More::fail("request $n reached the app"); next }
            for my $k (sort keys(($want->{env} // {})->%*)) {
                Test::More::is(escape($rec->{env}{$k} // '(absent)'), escape($want->{env}{$k}), "request $n: $k");
            }
            for my $k (($want->{absent} // [])->@*) {
                Test::More::ok(!exists $rec->{env}{$k}, "request $n: no $k")
                    or Test::More::diag("$k = " . escape($rec->{env}{$k}));
            }
            Test::More::is(escape($rec->{body}), escape($want->{body}), "request $n: body") if defined $want->{body};
            Test::More::is(length $rec->{body}, $want->{body_length}, "request $n: body length") if defined $want->{body_length};
        }
    });
}

1;
