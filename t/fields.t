# Kamado::Server and Kamado::Prefork are each one hash shared by role
# modules (functions over the object). Each module of a family declares
# the keys of that hash it owns (its FIELDS constant): no key is claimed
# twice, a module writes only keys it owns (other modules' are set
# through their owner's functions), every key it claims it writes, and
# every key the family reads is someone's. Writes are found in the source:
# assignments (= and op=, into the key or below it), ++ and --, delete,
# undef, local, slices, push/unshift/splice/pop/shift, and the keys of the
# constructor's hash.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Spec ();

my %FAMILY = (
    'Kamado::Server' => [qw(Kamado::Server Kamado::Server::Input Kamado::Server::Response Kamado::Server::Limits
        Kamado::Server::Errors Kamado::Server::Stream Kamado::Server::Async)],
    'Kamado::Prefork' => [qw(Kamado::Prefork Kamado::Prefork::Worker Kamado::Prefork::Template Kamado::Prefork::Slots
        Kamado::Prefork::Scaling Kamado::Prefork::Reaper Kamado::Prefork::Single)],
);
# what holds the family's object in a module, when not $self (a stream's
# $self is the stream: its server is the worker's object)
my %HOLDER = ('Kamado::Server::Stream' => ['$server', '$self->{server}']);

sub source {
    my ($module) = @_;
    (my $file = "lib/$module.pm") =~ s{::}{/}g;
    open my $fh, '<', $file or die "$file: $!";
    local $/;
    my $src = <$fh>;
    $src =~ s/^__END__\n.*//ms;
    $src =~ s/^\s*#.*$//mg;      # comments on their own line
    $src =~ s/\s#\s.*$//mg;      # and after code
    return $src;
}

# (written keys, read keys) of the family's object in a module's source
sub accesses {
    my ($module, $src) = @_;
    my (%write, %read);
    my $sub = qr/(?:->)?(?:\{[^{}]*\}|\[[^\[\]]*\])/;
    for my $holder (($HOLDER{$module} // ['$self'])->@*) {
        my $o = quotemeta($holder) . '(?:->)?\{(\w+)\}';
        $write{$1}++ while $src =~ /$o(?:$sub)*(?:->\@\*|->%\*)?\s*(?:\*\*|\/\/|\|\||&&|[-+.*\/%x|&^])?=(?![=~>])/g;
        $write{$1}++ while $src =~ /(?:\+\+|--)\s*$o/g;
        $write{$1}++ while $src =~ /$o(?:$sub)*\s*(?:\+\+|--)/g;
        $write{$1}++ while $src =~ /\b(?:delete|undef|local)\s+(?:\@)?$o/g;
        $write{$1}++ while $src =~ /\b(?:push|unshift|splice|pop|shift)\s*\(?\s*(?:\@\{\s*)?$o/g;
        $read{$1}++ while $src =~ /$o/g;
        # @$self{qw(a b)} = ...
        if ($holder eq '$self') {
            while ($src =~ /\@\$self\{qw\(([^)]*)\)\}\s*=(?!=)/g) { $write{$_}++ for split ' ', $1 }
            while ($src =~ /\@\$self\{qw\(([^)]*)\)\}/g)           { $read{$_}++  for split ' ', $1 }
        }
    }
    # the constructor's hash (of the family's object: a stream's is its own)
    if (!$HOLDER{$module} && $src =~ /\bbless\s*\{(.*?)\n\s*\},\s*\$class/s) {
        my $body = $1;
        $write{$1}++ while $body =~ /^\s*(\w+)\s*=>/mg;
    }
    return (\%write, \%read);
}

for my $family (sort keys %FAMILY) {
    my (%owner, %writes, %reads);
    for my $module ($FAMILY{$family}->@*) {
        eval "require $module; 1" or die $@;
        my $fields = $module->can('FIELDS');
        ok $fields, "$module declares the fields it owns (FIELDS)" or next;
        for my $field ($fields->()) {
            ok !$owner{$field}, "$family: $field is claimed once" or diag "by $owner{$field} and $module";
            $owner{$field} = $module;
        }
        @{ $writes{$module} }{ keys $_->%* } = () for (accesses($module, source($module)))[0];
        my (undef, $read) = accesses($module, source($module));
        $reads{$module} = $read;
    }
    for my $module ($FAMILY{$family}->@*) {
        my @stray = grep { ($owner{$_} // '') ne $module } sort keys $writes{$module}->%*;
        is_deeply \@stray, [], "$module writes only fields it owns"
            or diag join "\n", map { "  $_: owned by " . ($owner{$_} // 'nobody') } @stray;
        my @unwritten = grep { $owner{$_} eq $module && !exists $writes{$module}{$_} } sort keys %owner;
        is_deeply \@unwritten, [], "$module writes every field it claims";
        my @unknown = grep { !$owner{$_} } sort keys $reads{$module}->%*;
        is_deeply \@unknown, [], "$module reads only fields someone owns";
    }
}

# the scanner sees the forms of writing it is meant to
my ($w) = accesses('Kamado::Server', <<'SRC');
$self->{a} = 1; $self->{b}{$k} //= 2; $self->{c}++; delete $self->{d}{$x}; undef $self->{e};
local $self->{f} = 1; push $self->{g}->@*, 1; @$self{qw(h i)} = (1, 2); $self->{j} .= 'x';
my $r = $self->{k} == 1; $x = $self->{l}{m}; $self->{n}->method; $self->{o} =~ /x/;
SRC
is_deeply [sort keys %$w], [qw(a b c d e f g h i j)], 'the scanner finds writes and only writes';
done_testing;
